#include "gpu/coverage_scan.h"

#include <algorithm>
#include <climits>

#include "gpu/bulk_copy.cuh"
#include "gpu/gpu_check.h"

namespace kwb::gpu {

namespace {

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

// Dynamic shared memory of a pass: the slab ring, pass B's mask ring, the barriers, the histogram.
std::int64_t sharedBytes(int elemBytes, bool second, bool histogram, std::int64_t tiles)
{
    const std::int64_t E = 16 / elemBytes;
    std::int64_t bytes = kStages * kSlabChunks * kChunkBytes;
    if (second) bytes += kStages * kSlabChunks * E * 4;
    bytes += kStages * 8;
    if (histogram) bytes += tiles * 4;
    return bytes;
}

using KernelFn = void (*)(ScanArgs);

template <typename W>
KernelFn pickKernel(bool second, bool histogram)
{
    if (!second) return scanKernel<W, false, false>;
    return histogram ? scanKernel<W, true, true> : scanKernel<W, true, false>;
}

KernelFn kernelFor(int elemBytes, bool second, bool histogram)
{
    switch (elemBytes) {
    case 2: return pickKernel<std::uint16_t>(second, histogram);
    case 4: return pickKernel<std::uint32_t>(second, histogram);
    default: return pickKernel<unsigned long long>(second, histogram);
    }
}

// Blocks that fit on the device at once: the grid of a pass.
Result<int> residentGrid(KernelFn kernel, std::int64_t smemBytes, int smCount, std::int64_t slabs)
{
    KWB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smemBytes)));
    int perSm = 0;
    KWB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, static_cast<std::size_t>(smemBytes)));
    return static_cast<int>(std::clamp<std::int64_t>(slabs, 1, static_cast<std::int64_t>(std::max(perSm, 1)) * smCount));
}

} // namespace

bool coverageSupportsWidth(int elemBytes)
{
    return elemBytes == 2 || elemBytes == 4 || elemBytes == 8;
}

std::uint64_t sentinelBits(int elemBytes, int which)
{
    switch (elemBytes) {
    case 2: return which == 0 ? 0x7d5aULL : 0xfd2bULL;                         // fp16 signalling NaNs
    case 4: return which == 0 ? 0x7fa5a5a5ULL : 0xff9a5a5bULL;                 // fp32 signalling NaNs
    case 8: return which == 0 ? 0x7ff5a5a5a5a5a5a5ULL : 0xfff25a5a5a5a5a5bULL; // fp64 signalling NaNs
    default: return 0;
    }
}

std::int64_t paddedBytes(std::int64_t elements, int elemBytes)
{
    const std::int64_t bytes = elements * elemBytes;
    return std::max<std::int64_t>(kChunkBytes, (bytes + kChunkBytes - 1) / kChunkBytes * kChunkBytes);
}

ScanLayout ScanLayout::flat(std::int64_t n, std::int64_t tiles)
{
    ScanLayout l;
    l.rows = 1;
    l.cols = n;
    l.tileRows = 1;
    tiles = std::max<std::int64_t>(1, std::min(tiles, std::max<std::int64_t>(n, 1)));
    l.tileCols = std::max<std::int64_t>(1, (n + tiles - 1) / tiles);
    return l;
}

CoverageScanner::~CoverageScanner()
{
    if (m_mask) cudaFree(m_mask);
    if (m_counters) cudaFree(m_counters);
}

Status CoverageScanner::reserve(std::int64_t maskWords, std::int64_t counterWords)
{
    maskWords += 4; // pass B copies mask slices rounded up to 16 bytes
    if (maskWords > m_maskCapacity) {
        if (m_mask) cudaFree(m_mask);
        m_mask = nullptr;
        m_maskCapacity = 0;
        KWB_CUDA_CHECK(cudaMalloc(&m_mask, static_cast<std::size_t>(maskWords) * sizeof(std::uint32_t)));
        m_maskCapacity = maskWords;
    }
    if (counterWords > m_counterCapacity) {
        if (m_counters) cudaFree(m_counters);
        m_counters = nullptr;
        m_counterCapacity = 0;
        KWB_CUDA_CHECK(cudaMalloc(&m_counters, static_cast<std::size_t>(counterWords) * sizeof(unsigned long long)));
        m_counterCapacity = counterWords;
    }
    return Status::ok();
}

Status CoverageScanner::fill(void* data, std::int64_t elements, int elemBytes, int which, cudaStream_t stream)
{
    if (!coverageSupportsWidth(elemBytes))
        return Status(ErrorCode::Unsupported, "coverage: unsupported element width " + std::to_string(elemBytes));
    const std::int64_t vectors = paddedBytes(elements, elemBytes) / 16;
    const std::int64_t blocks = std::min<std::int64_t>((vectors + 255) / 256, 65536);
    const auto grid = static_cast<unsigned>(std::max<std::int64_t>(blocks, 1));
    auto* d = static_cast<uint4*>(data);
    const std::uint64_t bits = sentinelBits(elemBytes, which);
    switch (elemBytes) {
    case 2: fillKernel<std::uint16_t><<<grid, 256, 0, stream>>>(d, vectors, static_cast<std::uint16_t>(bits)); break;
    case 4: fillKernel<std::uint32_t><<<grid, 256, 0, stream>>>(d, vectors, static_cast<std::uint32_t>(bits)); break;
    default: fillKernel<unsigned long long><<<grid, 256, 0, stream>>>(d, vectors, bits); break;
    }
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

namespace {

ScanArgs makeArgs(const void* data, std::uint32_t* mask, const ScanLayout& layout, int elemBytes, int which,
    unsigned long long* counters, std::int64_t blockTotalsOffset, std::int64_t blockFirstOffset)
{
    ScanArgs a{};
    a.data = static_cast<const uint4*>(data);
    a.mask = mask;
    a.n = layout.elements();
    a.numChunks = paddedBytes(a.n, elemBytes) / kChunkBytes;
    a.sentinel = sentinelBits(elemBytes, which);
    TileGeom& g = a.geom;
    g = TileGeom{a.n, std::max<std::int64_t>(layout.cols, 1), std::max<std::int64_t>(layout.tileRows, 1),
        std::max<std::int64_t>(layout.tileCols, 1), std::max<std::int64_t>(layout.tilesX(), 1), 0, 0, 0};
    g.invCols = 1.0 / static_cast<double>(g.cols);
    g.invTileRows = 1.0 / static_cast<double>(g.tileRows);
    g.invTileCols = 1.0 / static_cast<double>(g.tileCols);
    a.tiles = layout.tilesX() * layout.tilesY();
    a.tileCounts = counters;
    a.blockTotals = counters + blockTotalsOffset;
    a.blockFirst = blockFirstOffset >= 0 ? counters + blockFirstOffset : nullptr;
    return a;
}

} // namespace

Status CoverageScanner::scanFirst(const void* data, const ScanLayout& layout, int elemBytes, cudaStream_t stream)
{
    if (!coverageSupportsWidth(elemBytes))
        return Status(ErrorCode::Unsupported, "coverage: unsupported element width " + std::to_string(elemBytes));
    if (layout.cols < 0 || layout.rows < 0 || layout.tileRows < 1 || layout.tileCols < 1)
        return Status(ErrorCode::InvalidArgument, "coverage: invalid layout");
    if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
        return Status(ErrorCode::InvalidArgument, "coverage: buffer is not 16-byte aligned");
    if (m_smCount == 0) {
        int dev = 0;
        KWB_CUDA_CHECK(cudaGetDevice(&dev));
        KWB_CUDA_CHECK(cudaDeviceGetAttribute(&m_smCount, cudaDevAttrMultiProcessorCount, dev));
        KWB_CUDA_CHECK(cudaDeviceGetAttribute(&m_ccMajor, cudaDevAttrComputeCapabilityMajor, dev));
        m_smCount = std::max(m_smCount, 1);
    }
    if (m_ccMajor < 9)
        return Status(ErrorCode::Unsupported,
            "coverage: the scan needs an sm_90 or newer GPU (bulk copies); this one is sm_" + std::to_string(m_ccMajor) + "x");
    m_layout = layout;
    m_elemBytes = elemBytes;
    m_gridA = 0;
    m_gridB = 0;
    m_haveFirst = true;
    const std::int64_t n = layout.elements();
    const std::int64_t tiles = layout.tilesX() * layout.tilesY();
    if (n == 0) return Status::ok();
    const std::int64_t numChunks = paddedBytes(n, elemBytes) / kChunkBytes;
    const std::int64_t slabs = (numChunks + kSlabChunks - 1) / kSlabChunks;
    const std::int64_t smemA = sharedBytes(elemBytes, false, false, tiles);
    KWB_ASSIGN_OR_RETURN(m_gridA, residentGrid(kernelFor(elemBytes, false, false), smemA, m_smCount, slabs));
    // The histogram counts in 32 bits: every block must see fewer than 2^32 elements.
    m_smemHistogram = tiles <= kHistogramMaxTiles && n / std::max(1, m_smCount) < (1LL << 31);
    const std::int64_t smemB = sharedBytes(elemBytes, true, m_smemHistogram, tiles);
    KWB_ASSIGN_OR_RETURN(m_gridB, residentGrid(kernelFor(elemBytes, true, m_smemHistogram), smemB, m_smCount, slabs));
    KWB_RETURN_IF_ERROR(reserve(numChunks * (16 / elemBytes), tiles + m_gridA + 2LL * m_gridB));
    const ScanArgs a = makeArgs(data, m_mask, layout, elemBytes, 0, m_counters, tiles, -1);
    kernelFor(elemBytes, false, false)<<<static_cast<unsigned>(m_gridA), kThreads, static_cast<std::size_t>(smemA), stream>>>(a);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

Status CoverageScanner::scanSecond(const void* data, cudaStream_t stream)
{
    if (!m_haveFirst) return Status(ErrorCode::Internal, "coverage: scanSecond before scanFirst");
    m_haveFirst = false;
    if (m_layout.elements() == 0) return Status::ok();
    if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
        return Status(ErrorCode::InvalidArgument, "coverage: buffer is not 16-byte aligned");
    const std::int64_t tiles = m_layout.tilesX() * m_layout.tilesY();
    const ScanArgs a =
        makeArgs(data, m_mask, m_layout, m_elemBytes, 1, m_counters, tiles + m_gridA, tiles + m_gridA + m_gridB);
    const std::int64_t smem = sharedBytes(m_elemBytes, true, m_smemHistogram, tiles);
    kernelFor(m_elemBytes, true, m_smemHistogram)<<<static_cast<unsigned>(m_gridB), kThreads, static_cast<std::size_t>(smem),
        stream>>>(a);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

Result<CoverageCounts> CoverageScanner::collect(int maxFirstUnwritten, cudaStream_t stream)
{
    CoverageCounts r;
    r.elements = m_layout.elements();
    r.tilesX = m_layout.tilesX();
    r.tilesY = m_layout.tilesY();
    const std::int64_t tiles = r.tilesX * r.tilesY;
    r.tileWritten.assign(static_cast<std::size_t>(tiles), 0);
    r.tileSize.resize(static_cast<std::size_t>(tiles));
    for (std::int64_t ty = 0; ty < r.tilesY; ++ty) {
        const std::int64_t h = std::min(m_layout.tileRows, m_layout.rows - ty * m_layout.tileRows);
        for (std::int64_t tx = 0; tx < r.tilesX; ++tx) {
            const std::int64_t w = std::min(m_layout.tileCols, m_layout.cols - tx * m_layout.tileCols);
            r.tileSize[static_cast<std::size_t>(ty * r.tilesX + tx)] = h * w;
        }
    }
    if (r.elements == 0) return r;
    if (m_gridA == 0 || m_gridB == 0) return Status(ErrorCode::Internal, "coverage: collect before the scans");
    std::vector<unsigned long long> host(static_cast<std::size_t>(tiles + m_gridA + 2LL * m_gridB));
    KWB_CUDA_CHECK(cudaMemcpyAsync(host.data(), m_counters, host.size() * 8, cudaMemcpyDeviceToHost, stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::int64_t missing = 0;
    for (std::int64_t t = 0; t < tiles; ++t) {
        const auto i = static_cast<std::size_t>(t);
        missing += static_cast<std::int64_t>(host[i]);
        r.tileWritten[i] = r.tileSize[i] - static_cast<std::int64_t>(host[i]);
    }
    unsigned long long first = ULLONG_MAX;
    for (int b = 0; b < m_gridA; ++b) r.writtenFirstPass += static_cast<std::int64_t>(host[static_cast<std::size_t>(tiles + b)]);
    for (int b = 0; b < m_gridB; ++b) {
        r.written += static_cast<std::int64_t>(host[static_cast<std::size_t>(tiles + m_gridA + b)]);
        first = std::min(first, host[static_cast<std::size_t>(tiles + m_gridA + m_gridB + b)]);
    }
    // Two independent counts of the same thing: bits set, and elements minus the unwritten ones per tile.
    if (r.written != r.elements - missing)
        return Status(ErrorCode::Internal, "coverage: " + std::to_string(r.written) + " elements written by the mask but " +
                                               std::to_string(r.elements - missing) + " by the tiles");
    if (first == ULLONG_MAX || maxFirstUnwritten <= 0 || r.written == r.elements) return r;

    // List the next unwritten indices from the combined mask, starting at the first one's chunk.
    const int E = 16 / m_elemBytes;
    const std::int64_t perChunk = 32LL * E;
    const std::int64_t numChunks = paddedBytes(r.elements, m_elemBytes) / kChunkBytes;
    std::int64_t c0 = static_cast<std::int64_t>(first) / perChunk;
    const std::int64_t window = 4096; // chunks per copy
    std::vector<std::uint32_t> words;
    for (std::int64_t c = c0; c < numChunks && static_cast<int>(r.firstUnwritten.size()) < maxFirstUnwritten;
         c += window) {
        const std::int64_t nChunks = std::min(window, numChunks - c);
        words.resize(static_cast<std::size_t>(nChunks * E));
        KWB_CUDA_CHECK(cudaMemcpy(words.data(), m_mask + c * E, words.size() * 4, cudaMemcpyDeviceToHost));
        for (std::int64_t j = 0; j < nChunks && static_cast<int>(r.firstUnwritten.size()) < maxFirstUnwritten; ++j) {
            for (int lane = 0; lane < 32 && static_cast<int>(r.firstUnwritten.size()) < maxFirstUnwritten; ++lane) {
                for (int k = 0; k < E && static_cast<int>(r.firstUnwritten.size()) < maxFirstUnwritten; ++k) {
                    const std::int64_t idx = ((c + j) * 32 + lane) * E + k;
                    if (idx >= r.elements) break;
                    if (!((words[static_cast<std::size_t>(j * E + k)] >> lane) & 1u)) r.firstUnwritten.push_back(idx);
                }
            }
        }
        // Stop after a bounded amount of copying: a nearly complete output may hide its last gaps far away.
        if (c - c0 > 64 * window) break;
    }
    return r;
}

} // namespace kwb::gpu
