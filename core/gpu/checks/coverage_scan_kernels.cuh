#pragma once
// Device side of the coverage scan (core/gpu/coverage_scan.h): the two scan
// passes and the sentinel fill. Included by coverage_scan.cu only.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "gpu/device/bulk_copy.cuh"

namespace kwb::gpu::scan_kernels {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr std::int64_t kChunkBytes = 512; // one warp, one 16-byte vector per lane
constexpr unsigned kFull = 0xffffffffu;
// The output streams through shared memory in slabs: each warp takes kU
// consecutive chunks of a slab, so a slab is 32 chunks = 16 KB, and a ring
// of kStages slabs per block keeps the copies of the next ones in flight
// while the current one is compared. Three stages and four blocks per SM
// measured best on the H200 (docs/gpu-validation.md).
constexpr int kU = 4;
constexpr int kSlabChunks = kWarps * kU;
constexpr int kStages = 3;
// Pass B counts tiles in a shared-memory histogram of this many 32-bit
// counters at most (16 KB); larger grids count straight into global memory.
constexpr std::int64_t kHistogramMaxTiles = 4096;

struct TileGeom {
    std::int64_t n;
    std::int64_t cols;
    std::int64_t tileRows;
    std::int64_t tileCols;
    std::int64_t tilesX;
    double invCols;
    double invTileRows;
    double invTileCols;
};

struct ScanArgs {
    const uint4* data;
    std::uint32_t* mask;
    std::int64_t numChunks;
    std::int64_t n;
    unsigned long long sentinel;
    TileGeom geom;
    std::int64_t tiles;
    unsigned long long* tileCounts;  // unwritten elements per tile: pass A clears them, pass B adds
    unsigned long long* blockTotals; // one per block: elements written (that pass's definition)
    unsigned long long* blockFirst;  // pass B, one per block: first unwritten element, or ULLONG_MAX
};

// a / b for 0 <= a < 2^53 through a double reciprocal, corrected to the exact quotient.
__device__ inline std::int64_t fastDiv(std::int64_t a, std::int64_t b, double invB)
{
    auto q = static_cast<std::int64_t>(static_cast<double>(a) * invB);
    while (q * b > a) --q;
    while ((q + 1) * b <= a) ++q;
    return q;
}

// Tile of element idx, and the first element index past idx whose tile may differ.
__device__ inline std::int64_t tileOf(const TileGeom& g, std::int64_t idx, std::int64_t* nextBoundary)
{
    const std::int64_t row = fastDiv(idx, g.cols, g.invCols);
    const std::int64_t col = idx - row * g.cols;
    const std::int64_t tx = fastDiv(col, g.tileCols, g.invTileCols);
    const std::int64_t ty = fastDiv(row, g.tileRows, g.invTileRows);
    if (g.tilesX == 1) // tiles are whole rows: a contiguous element range
        *nextBoundary = min(g.n, (ty + 1) * g.tileRows * g.cols);
    else
        *nextBoundary = row * g.cols + min(g.cols, (tx + 1) * g.tileCols);
    return ty * g.tilesX + tx;
}

__device__ inline std::int64_t clampI64(std::int64_t x, std::int64_t lo, std::int64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

// Bits of a lane's word (see maskWord) whose elements lie before `limit`: the
// word's bit b is element laneBase + b * E.
template <int E>
__device__ inline int bitsBefore(std::int64_t limit, std::int64_t laneBase)
{
    return static_cast<int>((clampI64(limit - laneBase, 0, 32 * E) + E - 1) / E);
}

// Bits [b0, b1) of a word, 0 <= b0, b1 <= 32.
__device__ inline std::uint32_t bitRange(int b0, int b1)
{
    const std::uint32_t hi = b1 >= 32 ? kFull : (1u << b1) - 1u;
    const std::uint32_t lo = b0 >= 32 ? kFull : (1u << b0) - 1u;
    return hi & ~lo;
}

// Does any element of this lane's kU vectors hold the sentinel's exact bits?
// The common case (no element does) then needs no ballots at all.
template <typename W>
__device__ inline bool holdsSentinel(const uint4 (&v)[kU], W sentinel)
{
    bool any = false;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
        const unsigned w[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
        if constexpr (sizeof(W) == 2) {
            // A 16-bit half of y is zero iff (y - 0x0001) borrows into its top bit while y's own top bit is clear.
            const unsigned pair = static_cast<unsigned>(sentinel) * 0x00010001u;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const unsigned y = w[i] ^ pair;
                any |= ((y - 0x00010001u) & ~y & 0x80008000u) != 0;
            }
        } else if constexpr (sizeof(W) == 4) {
#pragma unroll
            for (int i = 0; i < 4; ++i) any |= w[i] == static_cast<unsigned>(sentinel);
        } else {
            const auto s = static_cast<unsigned long long>(sentinel);
            any |= (static_cast<unsigned long long>(w[1]) << 32 | w[0]) == s;
            any |= (static_cast<unsigned long long>(w[3]) << 32 | w[2]) == s;
        }
    }
    return any;
}

// A warp's kU consecutive chunks become kU * E mask words, word j = u * E + k
// held by lane j: bit `lane` of word (u, k) is element ((c0 + u) * 32 + lane) * E + k.
// Pass A: bits of elements that differ from sentinel A. Pass B: those bits
// AND the bits of elements that differ from sentinel B.
template <typename W, bool kSecond, bool kWholeGroup>
__device__ inline std::uint32_t maskWord(const uint4 (&v)[kU], std::uint32_t prev, std::int64_t e0, std::int64_t n,
    W sentinel, int lane)
{
    constexpr int E = 16 / sizeof(W);
    std::uint32_t word = 0;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
        // Elements left from this lane's first one in chunk u (only the last group is partial).
        const std::int64_t left = kWholeGroup ? E : n - (e0 + (u * 32 + lane) * E);
#pragma unroll
        for (int k = 0; k < E; ++k) {
            const bool differs = reinterpret_cast<const W*>(&v[u])[k] != sentinel;
            std::uint32_t b = __ballot_sync(kFull, differs && (kWholeGroup || k < left));
            if (kSecond) b &= __shfl_sync(kFull, prev, u * E + k);
            if (lane == u * E + k) word = b;
        }
    }
    return word;
}

// Pass B: adds the unwritten elements of one warp group [e0, e0 + kU*32*E)
// to their tiles (written = tile size - unwritten, so a fully written group,
// the usual case, costs nothing here). A group inside one tile costs one
// reduction; a group across tile edges is cut at each edge and every lane
// counts the bits of its word that fall in the piece.
template <int E, bool kSmemHistogram>
__device__ inline void countMissing(const ScanArgs& a, std::uint32_t missing, std::int64_t e0, int lane,
    std::uint32_t* histogram)
{
    constexpr int G = kU * 32 * E;
    const std::int64_t groupEnd = min(e0 + G, a.n);
    std::int64_t boundary = 0;
    std::int64_t tile = tileOf(a.geom, e0, &boundary);
    auto add = [&](std::int64_t t, unsigned count) {
        if (kSmemHistogram) atomicAdd(&histogram[t], count);
        else atomicAdd(&a.tileCounts[t], static_cast<unsigned long long>(count));
    };
    if (groupEnd <= boundary) {
        const unsigned count = __reduce_add_sync(kFull, static_cast<unsigned>(__popc(missing)));
        if (lane == 0 && count) add(tile, count);
        return;
    }
    // Lane j = u * E + k: bit b of its word is element e0 + (u * 32 + b) * E + k.
    const std::int64_t laneBase = e0 + (lane / E) * 32 * E + lane % E;
    for (std::int64_t lo = e0; lo < groupEnd;) { // warp-uniform
        const std::int64_t hi = min(boundary, groupEnd);
        unsigned mine = 0;
        if (lane < kU * E)
            mine = static_cast<unsigned>(__popc(missing & bitRange(bitsBefore<E>(lo, laneBase), bitsBefore<E>(hi, laneBase))));
        const unsigned count = __reduce_add_sync(kFull, mine);
        if (lane == 0 && count) add(tile, count);
        lo = hi;
        if (lo < groupEnd) tile = tileOf(a.geom, lo, &boundary);
    }
}

// Pass B: the first unwritten element of a group with unwritten elements.
template <int E>
__device__ inline unsigned long long firstMissing(std::uint32_t missing, std::int64_t e0, int lane)
{
    const unsigned offset = missing ? static_cast<unsigned>(((lane / E) * 32 + __ffs(static_cast<int>(missing)) - 1) * E + lane % E)
                                    : UINT_MAX;
    return static_cast<unsigned long long>(e0) + __reduce_min_sync(kFull, offset);
}

// One pass over the output. Pass A (kSecond = false): blocks take slabs
// interleaved across the grid (the whole grid sweeps one window of memory);
// writes every mask word, clears the per-tile counts. Pass B: each block takes a
// contiguous run of slabs (its tiles stay few, so the histogram flush is
// short); the mask slice of a slab comes with it; rewrites only the mask
// words that lost bits.
template <typename W, bool kSecond, bool kSmemHistogram>
__global__ void __launch_bounds__(kThreads) scanKernel(const ScanArgs a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); // bulk copies need sm_90; the host refuses older devices first
#else
    constexpr int E = 16 / sizeof(W);
    constexpr int G = kU * 32 * E;
    extern __shared__ __align__(128) unsigned char smem[];
    auto* ring = reinterpret_cast<uint4*>(smem);                                   // kStages x 16 KB
    auto* maskRing = reinterpret_cast<std::uint32_t*>(ring + kStages * kSlabChunks * 32); // pass B: kStages x 32*E words
    auto* barriers = reinterpret_cast<std::uint64_t*>(maskRing + (kSecond ? kStages * kSlabChunks * E : 0));
    auto* histogram = reinterpret_cast<std::uint32_t*>(barriers + kStages);        // pass B, small grids
    __shared__ unsigned long long sTotal;
    __shared__ unsigned long long sFirst;

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const W sentinel = static_cast<W>(a.sentinel);
    const std::int64_t slabs = (a.numChunks + kSlabChunks - 1) / kSlabChunks;
    std::int64_t mySlabs = 0;
    std::int64_t firstSlab = 0;
    std::int64_t slabStep = 1;
    if (!kSecond) {
        firstSlab = blockIdx.x;
        slabStep = gridDim.x;
        mySlabs = slabs > blockIdx.x ? (slabs - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    } else {
        const std::int64_t per = (slabs + gridDim.x - 1) / gridDim.x;
        firstSlab = blockIdx.x * per;
        mySlabs = clampI64(slabs - firstSlab, 0, per);
    }

    if (!kSecond) {
        const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
        for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x; t < a.tiles; t += stride)
            a.tileCounts[t] = 0;
    }
    if (kSmemHistogram)
        for (std::int64_t t = threadIdx.x; t < a.tiles; t += kThreads) histogram[t] = 0;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) bulk::initBarrier(&barriers[s]);
        bulk::fenceBarrierInit();
        sTotal = 0;
        sFirst = ULLONG_MAX;
    }
    __syncthreads();

    auto issue = [&](int stage, std::int64_t slab) {
        const std::int64_t c0 = slab * kSlabChunks;
        const auto chunks = static_cast<unsigned>(clampI64(a.numChunks - c0, 0, kSlabChunks));
        // The mask slice is rounded up to 16 bytes; reserve() leaves room past the end.
        const unsigned maskBytes = kSecond ? (chunks * E * 4u + 15u) & ~15u : 0u;
        bulk::expectBytes(&barriers[stage], chunks * static_cast<unsigned>(kChunkBytes) + maskBytes);
        bulk::copyToShared(ring + stage * kSlabChunks * 32, a.data + c0 * 32, chunks * static_cast<unsigned>(kChunkBytes),
            &barriers[stage]);
        if (kSecond) bulk::copyToShared(maskRing + stage * kSlabChunks * E, a.mask + c0 * E, maskBytes, &barriers[stage]);
    };
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages && s < mySlabs; ++s) issue(s, firstSlab + s * slabStep);

    unsigned long long total = 0;
    unsigned long long first = ULLONG_MAX; // warp-uniform; slabs come in increasing order
    for (std::int64_t i = 0; i < mySlabs; ++i) {
        const int stage = static_cast<int>(i % kStages);
        bulk::waitPhase(&barriers[stage], static_cast<unsigned>((i / kStages) & 1));
        const std::int64_t c0 = (firstSlab + i * slabStep) * kSlabChunks + warp * kU;
        if (c0 < a.numChunks) { // warp-uniform
            uint4 v[kU];
#pragma unroll
            for (int u = 0; u < kU; ++u) v[u] = ring[(stage * kSlabChunks + warp * kU + u) * 32 + lane];
            const std::uint32_t prev =
                kSecond && lane < kU * E ? maskRing[(stage * kSlabChunks + warp * kU) * E + lane] : 0u;
            const std::int64_t e0 = c0 * 32 * E;
            const bool whole = e0 + G <= a.n;
            std::uint32_t word;
            if (whole && !__any_sync(kFull, holdsSentinel<W>(v, sentinel)))
                word = kSecond ? prev : lane < kU * E ? kFull : 0u; // every element differs from the sentinel
            else if (whole)
                word = maskWord<W, kSecond, true>(v, prev, e0, a.n, sentinel, lane);
            else
                word = maskWord<W, kSecond, false>(v, prev, e0, a.n, sentinel, lane);
            if (lane < kU * E && c0 * E + lane < a.numChunks * E && (!kSecond || word != prev))
                a.mask[c0 * E + lane] = word;
            total += static_cast<unsigned>(__popc(word));
            if (kSecond) {
                std::uint32_t valid = 0;
                if (lane < kU * E)
                    valid = whole ? kFull : bitRange(0, bitsBefore<E>(a.n, e0 + (lane / E) * 32 * E + lane % E));
                const std::uint32_t missing = ~word & valid;
                if (__any_sync(kFull, missing != 0)) {
                    if (first == ULLONG_MAX) first = firstMissing<E>(missing, e0, lane);
                    countMissing<E, kSmemHistogram>(a, missing, e0, lane, histogram);
                }
            }
        }
        __syncthreads(); // every warp is done with this stage
        if (threadIdx.x == 0 && i + kStages < mySlabs) issue(stage, firstSlab + (i + kStages) * slabStep);
    }

    for (int off = 16; off > 0; off >>= 1) total += __shfl_xor_sync(kFull, total, off);
    if (lane == 0) {
        if (total) atomicAdd(&sTotal, total);
        if (kSecond && first != ULLONG_MAX) atomicMin(&sFirst, first);
    }
    __syncthreads();
    if (kSmemHistogram)
        for (std::int64_t t = threadIdx.x; t < a.tiles; t += kThreads)
            if (histogram[t]) atomicAdd(&a.tileCounts[t], static_cast<unsigned long long>(histogram[t]));
    if (threadIdx.x == 0) {
        a.blockTotals[blockIdx.x] = sTotal;
        if (kSecond) a.blockFirst[blockIdx.x] = sFirst;
    }
#endif
}

template <typename W>
__global__ void fillKernel(uint4* __restrict__ data, std::int64_t vectors, W pattern)
{
    uint4 p;
    W* pw = reinterpret_cast<W*>(&p);
#pragma unroll
    for (int k = 0; k < static_cast<int>(16 / sizeof(W)); ++k) pw[k] = pattern;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride)
        data[i] = p;
}

} // namespace kwb::gpu::scan_kernels
