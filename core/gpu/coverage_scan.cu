#include "gpu/coverage_scan.h"

#include <algorithm>
#include <climits>

#include "gpu/gpu_check.h"

namespace kwb::gpu {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;            // 16-byte loads in flight per thread
constexpr std::int64_t kChunkBytes = 512; // one warp, one 16-byte vector per lane
constexpr unsigned kFull = 0xffffffffu;
constexpr int kCounterHeader = 3;     // written, writtenFirstPass, first unwritten

struct TileGeom {
    std::int64_t n;
    std::int64_t cols;
    std::int64_t tileRows;
    std::int64_t tileCols;
    std::int64_t tilesX;
};

// Tile of element idx, and the first element index past idx whose tile may differ.
__device__ inline std::int64_t tileOf(const TileGeom& g, std::int64_t idx, std::int64_t* nextBoundary)
{
    const std::int64_t row = idx / g.cols;
    const std::int64_t col = idx - row * g.cols;
    const std::int64_t tx = col / g.tileCols;
    const std::int64_t ty = row / g.tileRows;
    if (g.tilesX == 1) // tiles are whole rows: a contiguous element range
        *nextBoundary = min(g.n, (ty + 1) * g.tileRows * g.cols);
    else
        *nextBoundary = row * g.cols + min(g.cols, (tx + 1) * g.tileCols);
    return ty * g.tilesX + tx;
}

template <typename W>
__device__ inline bool differs(const uint4& v, int k, W sentinel)
{
    return reinterpret_cast<const W*>(&v)[k] != sentinel;
}

__device__ inline unsigned long long warpMin64(unsigned long long x)
{
    for (int off = 16; off > 0; off >>= 1) x = min(x, __shfl_xor_sync(kFull, x, off));
    return x;
}

// Pass A (kSecond = false): mask = written-in-A bits, counters[1] += count.
// Pass B (kSecond = true): bits = written-in-B & mask, counters[0] += count,
// per-tile counts, first unwritten index; mask words of incompletely written
// chunks are replaced by the combined bits (so unwritten indices can be listed).
// Bit layout: word c*E+k, bit lane = element (c*32+lane)*E+k.
template <typename W, bool kSecond>
__global__ void __launch_bounds__(kThreads) scanKernel(const uint4* __restrict__ data, std::uint32_t* __restrict__ mask,
    std::int64_t numChunks, std::int64_t chunksPerBlock, W sentinel, TileGeom g,
    unsigned long long* __restrict__ counters)
{
    constexpr int E = 16 / sizeof(W);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const std::int64_t blockBegin = static_cast<std::int64_t>(blockIdx.x) * chunksPerBlock;
    const std::int64_t blockEnd = min(numChunks, blockBegin + chunksPerBlock);
    unsigned long long* tileCounts = counters + kCounterHeader;

    unsigned long long total = 0;
    std::int64_t curTile = -1;
    std::int64_t curEnd = 0; // elements [.., curEnd) of the current segment belong to curTile
    unsigned long long curCount = 0;
    unsigned long long firstUnwritten = ULLONG_MAX;

    for (std::int64_t it = blockBegin + warp * kUnroll; it < blockEnd; it += kWarps * kUnroll) {
        uint4 v[kUnroll];
        std::uint32_t prev[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            if (it + u < blockEnd) {
                v[u] = __ldcs(data + (it + u) * 32 + lane);
                if (kSecond) prev[u] = lane < E ? mask[(it + u) * E + lane] : 0u;
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            const std::int64_t c = it + u;
            if (c >= blockEnd) break; // warp-uniform
            const std::int64_t base = (c * 32 + lane) * E;
            const std::int64_t chunkFirst = c * 32 * E;
            const std::int64_t chunkLast = min(g.n, chunkFirst + 32 * E) - 1;
            std::uint32_t myBits = 0; // bit k: element base+k written
            std::uint32_t myWord = 0; // lane k keeps ballot word k
            unsigned long long chunkCount = 0;
#pragma unroll
            for (int k = 0; k < E; ++k) {
                const bool wr = differs<W>(v[u], k, sentinel) && base + k < g.n;
                std::uint32_t ballot = __ballot_sync(kFull, wr);
                if (kSecond) ballot &= __shfl_sync(kFull, prev[u], k);
                if (lane == k) myWord = ballot;
                chunkCount += static_cast<unsigned long long>(__popc(ballot));
                myBits |= ((ballot >> lane) & 1u) << k;
            }
            total += chunkCount;
            const auto valid = static_cast<unsigned long long>(chunkLast - chunkFirst + 1);
            if (!kSecond) {
                if (lane < E) mask[c * E + lane] = myWord;
                continue;
            }
            if (chunkCount < valid && lane < E) mask[c * E + lane] = myWord;
            // Tile attribution.
            if (chunkLast < curEnd) {
                curCount += chunkCount;
            } else {
                std::int64_t boundary = 0;
                const std::int64_t t0 = tileOf(g, chunkFirst, &boundary);
                if (chunkLast < boundary) {
                    if (t0 != curTile) {
                        if (lane == 0 && curTile >= 0 && curCount) atomicAdd(&tileCounts[curTile], curCount);
                        curTile = t0;
                        curCount = 0;
                    }
                    curEnd = boundary;
                    curCount += chunkCount;
                } else {
                    // The chunk spans tiles (small or 2-D tiles): each lane adds its own elements.
                    std::int64_t runTile = -1;
                    unsigned long long run = 0;
                    for (int k = 0; k < E; ++k) {
                        if (!((myBits >> k) & 1u)) continue;
                        std::int64_t nb = 0;
                        const std::int64_t t = tileOf(g, base + k, &nb);
                        if (t != runTile) {
                            if (run) atomicAdd(&tileCounts[runTile], run);
                            runTile = t;
                            run = 0;
                        }
                        ++run;
                    }
                    if (run) atomicAdd(&tileCounts[runTile], run);
                }
            }
            // Chunks ascend within a warp: the first unwritten index found is the warp's smallest.
            if (firstUnwritten == ULLONG_MAX && chunkCount < valid) {
                std::uint32_t validBits = 0;
#pragma unroll
                for (int k = 0; k < E; ++k) validBits |= (base + k < g.n ? 1u : 0u) << k;
                const std::uint32_t un = ~myBits & validBits;
                const unsigned long long cand =
                    un ? static_cast<unsigned long long>(base + __ffs(static_cast<int>(un)) - 1) : ULLONG_MAX;
                firstUnwritten = warpMin64(cand);
            }
        }
    }

    // Block-level merge so that each block issues few global atomics.
    __shared__ unsigned long long sTotal[kWarps];
    __shared__ unsigned long long sFirst[kWarps];
    __shared__ long long sTile[kWarps];
    __shared__ unsigned long long sTileCount[kWarps];
    if (lane == 0) {
        sTotal[warp] = total;
        sFirst[warp] = firstUnwritten;
        sTile[warp] = curTile;
        sTileCount[warp] = curCount;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        unsigned long long f = ULLONG_MAX;
        long long tile = -1;
        unsigned long long cnt = 0;
        for (int w = 0; w < kWarps; ++w) {
            t += sTotal[w];
            f = min(f, sFirst[w]);
            if (sTile[w] != tile) {
                if (tile >= 0 && cnt) atomicAdd(&tileCounts[tile], cnt);
                tile = sTile[w];
                cnt = 0;
            }
            cnt += sTileCount[w];
        }
        if (tile >= 0 && cnt) atomicAdd(&tileCounts[tile], cnt);
        if (t) atomicAdd(&counters[kSecond ? 0 : 1], t);
        if (kSecond && f != ULLONG_MAX) atomicMin(&counters[2], f);
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

template <typename W, bool kSecond>
Status launchScan(const void* data, std::uint32_t* mask, const ScanLayout& layout, std::int64_t numChunks,
    unsigned long long* counters, int smCount, cudaStream_t stream)
{
    int perSm = 0;
    KWB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, scanKernel<W, kSecond>, kThreads, 0));
    const std::int64_t target = static_cast<std::int64_t>(std::max(perSm, 1)) * smCount;
    const std::int64_t step = kWarps * kUnroll;
    std::int64_t perBlock = (numChunks + target - 1) / target;
    perBlock = std::max<std::int64_t>(step, (perBlock + step - 1) / step * step);
    const std::int64_t blocks = (numChunks + perBlock - 1) / perBlock;
    TileGeom g{layout.elements(), std::max<std::int64_t>(layout.cols, 1), std::max<std::int64_t>(layout.tileRows, 1),
        std::max<std::int64_t>(layout.tileCols, 1), std::max<std::int64_t>(layout.tilesX(), 1)};
    const W sentinel = static_cast<W>(sentinelBits(sizeof(W), kSecond ? 1 : 0));
    scanKernel<W, kSecond><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        static_cast<const uint4*>(data), mask, numChunks, perBlock, sentinel, g, counters);
    KWB_CUDA_CHECK(cudaGetLastError());
    return Status::ok();
}

template <bool kSecond>
Status dispatchScan(int elemBytes, const void* data, std::uint32_t* mask, const ScanLayout& layout,
    std::int64_t numChunks, unsigned long long* counters, int smCount, cudaStream_t stream)
{
    switch (elemBytes) {
    case 2: return launchScan<std::uint16_t, kSecond>(data, mask, layout, numChunks, counters, smCount, stream);
    case 4: return launchScan<std::uint32_t, kSecond>(data, mask, layout, numChunks, counters, smCount, stream);
    case 8: return launchScan<unsigned long long, kSecond>(data, mask, layout, numChunks, counters, smCount, stream);
    default: return Status(ErrorCode::Unsupported, "coverage scan: unsupported element width " + std::to_string(elemBytes));
    }
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
    KWB_CUDA_CHECK(cudaMemsetAsync(m_counters + 2, 0xff, 8, stream));
    if (layout.elements() == 0) return Status::ok();
    return dispatchScan<false>(elemBytes, data, m_mask, layout, numChunks, m_counters, m_smCount, stream);
}

Status CoverageScanner::scanSecond(const void* data, cudaStream_t stream)
{
    if (!m_mask || !m_counters) return Status(ErrorCode::Internal, "coverage: scanSecond before scanFirst");
    if (m_layout.elements() == 0) return Status::ok();
    const std::int64_t numChunks = paddedBytes(m_layout.elements(), m_elemBytes) / kChunkBytes;
    return dispatchScan<true>(m_elemBytes, data, m_mask, m_layout, numChunks, m_counters, m_smCount, stream);
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
    const unsigned long long first = host[2];
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
