#include "gpu/checks/coverage_scan.h"

#include <algorithm>
#include <climits>

#include "gpu/checks/coverage_scan_kernels.cuh"
#include "gpu/device/gpu_check.h"

namespace kwb::gpu {

namespace {

using namespace scan_kernels;

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
    m_haveFirst = false; // set once pass A is enqueued: a failed scanFirst leaves nothing for pass B
    const std::int64_t n = layout.elements();
    const std::int64_t tiles = layout.tilesX() * layout.tilesY();
    if (n == 0) {
        m_haveFirst = true;
        return Status::ok();
    }
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
    m_haveFirst = true;
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
