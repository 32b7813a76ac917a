#include "gpu/coverage_scan.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "gpu/gpu_check.h"

namespace kwb::gpu {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr std::int64_t kChunkBytes = 512; // one warp, one 16-byte vector per lane
constexpr unsigned kFull = 0xffffffffu;
constexpr int kCounterHeader = 3;     // written, writtenFirstPass, ~(first unwritten) (0 = none)

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

// Streaming 16-byte load: no L1 allocation, L2 prefetch of the 256-byte sector group.
__device__ inline uint4 loadStreaming(const uint4* p)
{
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

template <typename W>
__device__ inline bool differs(const uint4& v, int k, W sentinel)
{
    return reinterpret_cast<const W*>(&v)[k] != sentinel;
}

// Scan passes. Pass A (kSecond = false): mask = bits of elements that differ
// from sentinel A; counters[1] += their count. Pass B (kSecond = true): mask
// &= bits of elements that differ from sentinel B. Both stream the output
// once with 16-byte loads and keep the loop body small (register count sets
// occupancy, and occupancy sets the bytes in flight); tiles and indices are
// worked out afterwards from the mask, which is 1/(8 * element bytes) of the data.
// Bit layout: word c*E+k, bit lane = element (c*32+lane)*E+k.
template <typename W, bool kSecond, int kU, bool kNc, int kLayout>
__global__ void __launch_bounds__(kThreads, kU == 4 ? 6 : 4) scanKernel(const uint4* __restrict__ data, std::uint32_t* __restrict__ mask,
    std::int64_t numChunks, std::int64_t chunksPerBlock, W sentinel, std::int64_t n,
    unsigned long long* __restrict__ counters)
{
    constexpr int E = 16 / sizeof(W);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    // kLayout 0: each block walks its own contiguous segment, kU consecutive
    // chunks per warp step; 1: all warps sweep the output together (grid-stride),
    // kU consecutive chunks per warp; 2: like 1, but a warp's kU chunks lie a
    // whole grid of warps apart, so each load instruction of the grid covers
    // one contiguous range (the plain streaming-read pattern).
    constexpr bool kGridStride = kLayout != 0;
    const std::int64_t totalWarps = static_cast<std::int64_t>(gridDim.x) * kWarps;
    const std::int64_t blockBegin = kGridStride ? 0 : static_cast<std::int64_t>(blockIdx.x) * chunksPerBlock;
    const std::int64_t blockEnd = kGridStride ? numChunks : min(numChunks, blockBegin + chunksPerBlock);
    const std::int64_t warpId = static_cast<std::int64_t>(blockIdx.x) * kWarps + warp;
    const std::int64_t first = kLayout == 0 ? blockBegin + warp * kU : kLayout == 1 ? warpId * kU : warpId;
    const std::int64_t step = kLayout == 0 ? kWarps * kU : totalWarps * kU;
    const std::int64_t spacing = kLayout == 2 ? totalWarps : 1; // chunk distance between a warp's kU loads
    unsigned long long total = 0;

    for (std::int64_t it = first; it < blockEnd; it += step) {
        uint4 v[kU];
        std::uint32_t prev[kU];
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const std::int64_t c = it + u * spacing;
            if (c < blockEnd) {
                v[u] = kNc ? loadStreaming(data + c * 32 + lane) : __ldcs(data + c * 32 + lane);
                if (kSecond) prev[u] = lane < E ? mask[c * E + lane] : 0u;
            }
        }
#pragma unroll
        for (int u = 0; u < kU; ++u) {
            const std::int64_t c = it + u * spacing;
            if (c < blockEnd) { // warp-uniform
                // Elements left from this lane's first one (only the last chunk is partial).
                const std::int64_t left = n - (c * 32 + lane) * E;
                std::uint32_t myWord = 0;
                unsigned chunkCount = 0;
#pragma unroll
                for (int k = 0; k < E; ++k) {
                    std::uint32_t ballot = __ballot_sync(kFull, differs<W>(v[u], k, sentinel) && k < left);
                    if (kSecond) ballot &= __shfl_sync(kFull, prev[u], k);
                    if (lane == k) myWord = ballot;
                    if (!kSecond) chunkCount += static_cast<unsigned>(__popc(ballot));
                }
                total += chunkCount;
                // Pass B rewrites only words that lost bits: none for a fully written output.
                if (lane < E && (!kSecond || myWord != prev[u])) mask[c * E + lane] = myWord;
            }
        }
    }
    if (!kSecond) {
        __shared__ unsigned long long sTotal;
        if (threadIdx.x == 0) sTotal = 0;
        __syncthreads();
        if (lane == 0 && total) atomicAdd(&sTotal, total);
        __syncthreads();
        if (threadIdx.x == 0 && sTotal) atomicAdd(&counters[1], sTotal);
    }
}

// Counts from the combined mask: total written, per-tile written counts and
// the first unwritten element. One thread per chunk (E mask words).
template <int E>
__global__ void __launch_bounds__(kThreads) tallyKernel(const std::uint32_t* __restrict__ mask, std::int64_t numChunks,
    TileGeom g, unsigned long long* __restrict__ counters)
{
    unsigned long long* tileCounts = counters + kCounterHeader;
    const int lane = threadIdx.x & 31;
    unsigned long long total = 0;
    unsigned long long first = ULLONG_MAX;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    // Whole warps iterate together (the tile aggregation below uses warp intrinsics).
    const std::int64_t warpRounds = (numChunks + stride - 1) / stride;
    for (std::int64_t r = 0; r < warpRounds; ++r) {
        const std::int64_t c = r * stride + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        const bool active = c < numChunks;
        std::uint32_t w[E];
        unsigned cnt = 0;
        long long tile = -1;
        if (active) {
#pragma unroll
            for (int k = 0; k < E; ++k) w[k] = mask[c * E + k];
#pragma unroll
            for (int k = 0; k < E; ++k) cnt += static_cast<unsigned>(__popc(w[k]));
            total += cnt;
            const std::int64_t chunkFirst = c * 32 * E;
            const std::int64_t chunkLast = min(g.n, chunkFirst + 32 * E) - 1;
            const auto valid = static_cast<unsigned>(chunkLast - chunkFirst + 1);
            if (cnt < valid && first == ULLONG_MAX) {
                for (unsigned j = 0; j < valid; ++j) {
                    if (!((w[j % E] >> (j / E)) & 1u)) {
                        first = static_cast<unsigned long long>(chunkFirst + j);
                        break;
                    }
                }
            }
            std::int64_t boundary = 0;
            const std::int64_t t0 = tileOf(g, chunkFirst, &boundary);
            if (chunkLast < boundary) {
                tile = t0;
            } else if (cnt) {
                // The chunk spans tiles: walk its elements in order, tracking row and column incrementally.
                std::int64_t row = chunkFirst / g.cols;
                std::int64_t col = chunkFirst - row * g.cols;
                std::int64_t tx = col / g.tileCols;
                std::int64_t ty = row / g.tileRows;
                std::int64_t nextCol = min(g.cols, (tx + 1) * g.tileCols);
                std::int64_t nextRow = (ty + 1) * g.tileRows;
                long long runTile = -1;
                unsigned long long run = 0;
                for (unsigned j = 0; j < valid; ++j) {
                    if ((w[j % E] >> (j / E)) & 1u) {
                        const long long t = ty * g.tilesX + tx;
                        if (t != runTile) {
                            if (run) atomicAdd(&tileCounts[runTile], run);
                            runTile = t;
                            run = 0;
                        }
                        ++run;
                    }
                    if (++col == nextCol) {
                        if (col == g.cols) {
                            col = 0;
                            tx = 0;
                            nextCol = min(g.cols, g.tileCols);
                            if (++row == nextRow) {
                                ++ty;
                                nextRow += g.tileRows;
                            }
                        } else {
                            ++tx;
                            nextCol = min(g.cols, nextCol + g.tileCols);
                        }
                    }
                }
                if (run) atomicAdd(&tileCounts[runTile], run);
            }
        }
        // Lanes whose chunks fall in the same tile add once.
        const unsigned peers = __match_any_sync(kFull, tile);
        const unsigned sum = __reduce_add_sync(peers, tile >= 0 ? cnt : 0u);
        if (tile >= 0 && sum && lane == __ffs(static_cast<int>(peers)) - 1)
            atomicAdd(&tileCounts[tile], static_cast<unsigned long long>(sum));
    }
    for (int off = 16; off > 0; off >>= 1) {
        total += __shfl_xor_sync(kFull, total, off);
        first = min(first, __shfl_xor_sync(kFull, first, off));
    }
    if (lane == 0) {
        if (total) atomicAdd(&counters[0], total);
        if (first != ULLONG_MAX) atomicMax(&counters[2], ~first); // max of ~i is min of i; 0 means none
    }
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

int smCountOfCurrentDevice()
{
    int dev = 0;
    int sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 1;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) return 1;
    return std::max(sms, 1);
}

template <typename W, bool kSecond, int kU, bool kNc, int kLayout>
Status launchScanU(const void* data, std::uint32_t* mask, std::int64_t n, std::int64_t numChunks,
    unsigned long long* counters, int smCount, cudaStream_t stream)
{
    static int perSm = 0; // per instantiation; the executor uses one device
    if (perSm == 0)
        KWB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &perSm, scanKernel<W, kSecond, kU, kNc, kLayout>, kThreads, 0));
    const std::int64_t target = static_cast<std::int64_t>(std::max(perSm, 1)) * smCount;
    const std::int64_t step = kWarps * kU;
    std::int64_t perBlock = (numChunks + target - 1) / target;
    perBlock = std::max<std::int64_t>(step, (perBlock + step - 1) / step * step);
    std::int64_t blocks = (numChunks + perBlock - 1) / perBlock;
    if (kLayout != 0) blocks = std::min(target, (numChunks + step - 1) / step);
    const W sentinel = static_cast<W>(sentinelBits(sizeof(W), kSecond ? 1 : 0));
    scanKernel<W, kSecond, kU, kNc, kLayout><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        static_cast<const uint4*>(data), mask, numChunks, perBlock, sentinel, n, counters);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

// Benchmarks and tests may pick another variant through KWB_COVERAGE_SCAN_VARIANT.
int initialScanVariant()
{
    const char* v = std::getenv("KWB_COVERAGE_SCAN_VARIANT");
    return v && *v >= '0' && *v <= '5' && v[1] == '\0' ? *v - '0' : 0;
}
int g_scanVariant = initialScanVariant();

template <typename W, bool kSecond>
Status launchScan(const void* data, std::uint32_t* mask, std::int64_t n, std::int64_t numChunks,
    unsigned long long* counters, int smCount, cudaStream_t stream)
{
    switch (g_scanVariant) {
    case 1: return launchScanU<W, kSecond, 4, true, 0>(data, mask, n, numChunks, counters, smCount, stream);
    case 2: return launchScanU<W, kSecond, 8, false, 0>(data, mask, n, numChunks, counters, smCount, stream);
    case 3: return launchScanU<W, kSecond, 4, false, 1>(data, mask, n, numChunks, counters, smCount, stream);
    case 4: return launchScanU<W, kSecond, 8, false, 1>(data, mask, n, numChunks, counters, smCount, stream);
    case 5: return launchScanU<W, kSecond, 4, false, 2>(data, mask, n, numChunks, counters, smCount, stream);
    default: return launchScanU<W, kSecond, 4, false, 0>(data, mask, n, numChunks, counters, smCount, stream);
    }
}

template <bool kSecond>
Status dispatchScan(int elemBytes, const void* data, std::uint32_t* mask, std::int64_t n, std::int64_t numChunks,
    unsigned long long* counters, int smCount, cudaStream_t stream)
{
    switch (elemBytes) {
    case 2: return launchScan<std::uint16_t, kSecond>(data, mask, n, numChunks, counters, smCount, stream);
    case 4: return launchScan<std::uint32_t, kSecond>(data, mask, n, numChunks, counters, smCount, stream);
    case 8: return launchScan<unsigned long long, kSecond>(data, mask, n, numChunks, counters, smCount, stream);
    default: return Status(ErrorCode::Unsupported, "coverage scan: unsupported element width " + std::to_string(elemBytes));
    }
}

template <int E>
Status launchTally(const std::uint32_t* mask, const ScanLayout& layout, std::int64_t numChunks,
    unsigned long long* counters, int smCount, cudaStream_t stream)
{
    TileGeom g{layout.elements(), std::max<std::int64_t>(layout.cols, 1), std::max<std::int64_t>(layout.tileRows, 1),
        std::max<std::int64_t>(layout.tileCols, 1), std::max<std::int64_t>(layout.tilesX(), 1), 0, 0, 0};
    g.invCols = 1.0 / static_cast<double>(g.cols);
    g.invTileRows = 1.0 / static_cast<double>(g.tileRows);
    g.invTileCols = 1.0 / static_cast<double>(g.tileCols);
    const std::int64_t blocks = std::clamp<std::int64_t>((numChunks + kThreads - 1) / kThreads, 1, 8LL * smCount);
    tallyKernel<E><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(mask, numChunks, g, counters);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

} // namespace

void setCoverageScanVariant(int variant)
{
    g_scanVariant = variant >= 0 && variant <= 5 ? variant : 0;
}

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

Status CoverageScanner::reserve(std::int64_t maskWords, std::int64_t tiles)
{
    if (maskWords > m_maskCapacity) {
        if (m_mask) cudaFree(m_mask);
        m_mask = nullptr;
        m_maskCapacity = 0;
        KWB_CUDA_CHECK(cudaMalloc(&m_mask, static_cast<std::size_t>(maskWords) * sizeof(std::uint32_t)));
        m_maskCapacity = maskWords;
    }
    if (tiles + kCounterHeader > m_tileCapacity) {
        if (m_counters) cudaFree(m_counters);
        m_counters = nullptr;
        m_tileCapacity = 0;
        KWB_CUDA_CHECK(cudaMalloc(&m_counters, static_cast<std::size_t>(tiles + kCounterHeader) * sizeof(unsigned long long)));
        m_tileCapacity = tiles + kCounterHeader;
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

Status CoverageScanner::scanFirst(const void* data, const ScanLayout& layout, int elemBytes, cudaStream_t stream)
{
    if (!coverageSupportsWidth(elemBytes))
        return Status(ErrorCode::Unsupported, "coverage: unsupported element width " + std::to_string(elemBytes));
    if (layout.cols < 0 || layout.rows < 0 || layout.tileRows < 1 || layout.tileCols < 1)
        return Status(ErrorCode::InvalidArgument, "coverage: invalid layout");
    if (reinterpret_cast<std::uintptr_t>(data) % 16 != 0)
        return Status(ErrorCode::InvalidArgument, "coverage: buffer is not 16-byte aligned");
    m_layout = layout;
    m_elemBytes = elemBytes;
    if (m_smCount == 0) m_smCount = smCountOfCurrentDevice();
    const std::int64_t numChunks = paddedBytes(layout.elements(), elemBytes) / kChunkBytes;
    const std::int64_t tiles = layout.tilesX() * layout.tilesY();
    KWB_RETURN_IF_ERROR(reserve(numChunks * (16 / elemBytes), tiles));
    KWB_CUDA_CHECK(cudaMemsetAsync(m_counters, 0, static_cast<std::size_t>(tiles + kCounterHeader) * 8, stream));
    if (layout.elements() == 0) return Status::ok();
    return dispatchScan<false>(elemBytes, data, m_mask, layout.elements(), numChunks, m_counters, m_smCount, stream);
}

Status CoverageScanner::scanSecond(const void* data, cudaStream_t stream)
{
    if (!m_mask || !m_counters) return Status(ErrorCode::Internal, "coverage: scanSecond before scanFirst");
    if (m_layout.elements() == 0) return Status::ok();
    const std::int64_t numChunks = paddedBytes(m_layout.elements(), m_elemBytes) / kChunkBytes;
    KWB_RETURN_IF_ERROR(
        dispatchScan<true>(m_elemBytes, data, m_mask, m_layout.elements(), numChunks, m_counters, m_smCount, stream));
    switch (m_elemBytes) {
    case 2: return launchTally<8>(m_mask, m_layout, numChunks, m_counters, m_smCount, stream);
    case 4: return launchTally<4>(m_mask, m_layout, numChunks, m_counters, m_smCount, stream);
    default: return launchTally<2>(m_mask, m_layout, numChunks, m_counters, m_smCount, stream);
    }
}

Result<CoverageCounts> CoverageScanner::collect(int maxFirstUnwritten, cudaStream_t stream)
{
    CoverageCounts r;
    r.elements = m_layout.elements();
    r.tilesX = m_layout.tilesX();
    r.tilesY = m_layout.tilesY();
    const std::int64_t tiles = r.tilesX * r.tilesY;
    std::vector<unsigned long long> host(static_cast<std::size_t>(tiles + kCounterHeader));
    KWB_CUDA_CHECK(cudaMemcpyAsync(host.data(), m_counters, host.size() * 8, cudaMemcpyDeviceToHost, stream));
    KWB_CUDA_CHECK(cudaStreamSynchronize(stream));
    r.written = static_cast<std::int64_t>(host[0]);
    r.writtenFirstPass = static_cast<std::int64_t>(host[1]);
    r.tileWritten.resize(static_cast<std::size_t>(tiles));
    r.tileSize.resize(static_cast<std::size_t>(tiles));
    for (std::int64_t ty = 0; ty < r.tilesY; ++ty) {
        const std::int64_t h = std::min(m_layout.tileRows, m_layout.rows - ty * m_layout.tileRows);
        for (std::int64_t tx = 0; tx < r.tilesX; ++tx) {
            const std::int64_t w = std::min(m_layout.tileCols, m_layout.cols - tx * m_layout.tileCols);
            const auto i = static_cast<std::size_t>(ty * r.tilesX + tx);
            r.tileWritten[i] = static_cast<std::int64_t>(host[kCounterHeader + i]);
            r.tileSize[i] = h * w;
        }
    }
    const unsigned long long first = host[2] ? ~host[2] : ULLONG_MAX;
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
