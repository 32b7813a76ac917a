// Coverage scan on buffers with known written patterns, for every element
// width, flat and 2-D tilings (fast and per-element tile paths), sizes that
// are not multiples of the scan's chunk, and a writer that stores sentinel A
// itself (must count as unwritten: an element is written only if it differs
// from its sentinel in both runs).
#include <cstdint>
#include <vector>

#include "gpu/checks/coverage_scan.h"
#include "gpu_test.h"

using namespace kwb::gpu;

namespace {

constexpr const char* kTestName = "tst_gpu_coverage";

enum class Pattern : int { All, EveryKth, RowsBelow, AllButLast, Even, AllButOne };

struct Case {
    const char* name;
    int elemBytes;
    ScanLayout layout;
    Pattern pattern;
    std::int64_t param;
    std::int64_t sentinelPrefix; // the first `sentinelPrefix` written elements store sentinel A bits
};

__host__ __device__ bool writes(Pattern p, std::int64_t i, std::int64_t n, std::int64_t cols, std::int64_t param)
{
    switch (p) {
    case Pattern::All: return true;
    case Pattern::EveryKth: return i % param == 0;
    case Pattern::RowsBelow: return i / cols < param;
    case Pattern::AllButLast: return i < n - param;
    case Pattern::Even: return i % 2 == 0;
    case Pattern::AllButOne: return i != param;
    }
    return false;
}

template <typename W>
__global__ void writer(W* out, std::int64_t n, std::int64_t cols, Pattern p, std::int64_t param, W value,
    std::int64_t sentinelPrefix, W sentinelA)
{
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        if (writes(p, i, n, cols, param)) out[i] = i < sentinelPrefix ? sentinelA : value;
}

template <typename W>
void launchWriter(void* out, const Case& c)
{
    const std::int64_t n = c.layout.elements();
    writer<W><<<1024, 256>>>(static_cast<W*>(out), n, c.layout.cols, c.pattern, c.param, static_cast<W>(0x3c00),
        c.sentinelPrefix, static_cast<W>(sentinelBits(sizeof(W), 0)));
}

void write(void* out, const Case& c)
{
    if (c.elemBytes == 2) launchWriter<std::uint16_t>(out, c);
    else if (c.elemBytes == 4) launchWriter<std::uint32_t>(out, c);
    else launchWriter<unsigned long long>(out, c);
}

void runCase(const Case& c)
{
    std::printf("case %s\n", c.name);
    const ScanLayout& L = c.layout;
    const std::int64_t n = L.elements();
    void* buf = nullptr;
    if (cudaMalloc(&buf, static_cast<std::size_t>(paddedBytes(n, c.elemBytes))) != cudaSuccess) {
        GT_CHECK(!"cudaMalloc");
        return;
    }
    CoverageScanner scanner;
    GT_OK(CoverageScanner::fill(buf, n, c.elemBytes, 0, nullptr));
    write(buf, c);
    GT_OK(scanner.scanFirst(buf, L, c.elemBytes, nullptr));
    GT_OK(CoverageScanner::fill(buf, n, c.elemBytes, 1, nullptr));
    write(buf, c);
    GT_OK(scanner.scanSecond(buf, nullptr));
    auto r = scanner.collect(16, nullptr);
    GT_OK(r);
    cudaFree(buf);
    if (!r) return;

    // Host expectation.
    std::int64_t written = 0;
    std::int64_t writtenA = 0;
    std::vector<std::int64_t> tiles(static_cast<std::size_t>(L.tilesX() * L.tilesY()), 0);
    std::vector<std::int64_t> firstUnwritten;
    for (std::int64_t i = 0; i < n; ++i) {
        bool w = writes(c.pattern, i, n, L.cols, c.param);
        bool storesSentinel = w && i < c.sentinelPrefix;
        if (w && !storesSentinel) {
            ++written;
            ++writtenA;
            const std::int64_t row = i / L.cols;
            const std::int64_t col = i % L.cols;
            ++tiles[static_cast<std::size_t>((row / L.tileRows) * L.tilesX() + col / L.tileCols)];
        } else if (firstUnwritten.size() < 16) {
            firstUnwritten.push_back(i);
        }
    }
    GT_CHECK_EQ(r->elements, n);
    GT_CHECK_EQ(r->written, written);
    GT_CHECK_EQ(r->writtenFirstPass, writtenA);
    GT_CHECK_EQ(r->tileWritten.size(), tiles.size());
    std::int64_t tileMismatch = 0;
    std::int64_t sizeSum = 0;
    for (std::size_t t = 0; t < tiles.size() && t < r->tileWritten.size(); ++t) {
        if (r->tileWritten[t] != tiles[t]) ++tileMismatch;
        sizeSum += r->tileSize[t];
    }
    GT_CHECK_EQ(tileMismatch, 0);
    GT_CHECK_EQ(sizeSum, n);
    GT_CHECK_EQ(r->firstUnwritten.size(), firstUnwritten.size());
    for (std::size_t k = 0; k < firstUnwritten.size() && k < r->firstUnwritten.size(); ++k)
        GT_CHECK_EQ(r->firstUnwritten[k], firstUnwritten[k]);
}

ScanLayout grid2d(std::int64_t rows, std::int64_t cols, std::int64_t tileRows, std::int64_t tileCols)
{
    ScanLayout l;
    l.rows = rows;
    l.cols = cols;
    l.tileRows = tileRows;
    l.tileCols = tileCols;
    return l;
}

} // namespace

int main()
{
    kwb::gputest::requireDevice(kTestName);
    const std::int64_t odd = 1000003;
    const Case cases[] = {
        {"fp32 flat, all written", 4, ScanLayout::flat(odd, 64), Pattern::All, 0, 0},
        {"fp32 flat, 0.3% written", 4, ScanLayout::flat(odd, 64), Pattern::EveryKth, 333, 0},
        {"fp32 2-D small tiles (per-element path)", 4, grid2d(1000, 77, 8, 10), Pattern::RowsBelow, 500, 0},
        {"fp32 2-D wide rows (fast path)", 4, grid2d(64, 8192, 8, 1024), Pattern::EveryKth, 7, 0},
        {"fp32 2-D full-row tiles", 4, grid2d(300, 1000, 32, 1000), Pattern::RowsBelow, 150, 0},
        {"fp16 flat, last 3 unwritten", 2, ScanLayout::flat(4099, 32), Pattern::AllButLast, 3, 0},
        {"fp64 flat, even written", 8, ScanLayout::flat(1025, 8), Pattern::Even, 0, 0},
        {"fp32 writer stores sentinel A in 100 elements", 4, ScanLayout::flat(odd, 256), Pattern::All, 0, 100},
        {"fp32 64M + 5, one unwritten element", 4, ScanLayout::flat((1LL << 26) + 5, 4096), Pattern::AllButOne,
            12345678, 0},
        {"fp32 one element", 4, ScanLayout::flat(1, 4), Pattern::All, 0, 0},
        // Tiles narrower than a warp's 512-element group and not aligned to it: every group is cut at tile edges.
        {"fp32 2-D 100-column tiles across groups", 4, grid2d(2000, 3200, 63, 100), Pattern::EveryKth, 3, 0},
        {"fp16 2-D odd tiles", 2, grid2d(777, 1234, 25, 39), Pattern::RowsBelow, 400, 0},
        {"fp64 2-D small tiles", 8, grid2d(513, 300, 16, 7), Pattern::Even, 0, 0},
        // More tiles than the shared-memory histogram holds: counts go straight to global memory.
        {"fp32 2-D 128x128 grid (16384 tiles)", 4, grid2d(4096, 4096, 32, 32), Pattern::EveryKth, 5, 0},
        {"fp32 flat 5000 tiles, 0.3% written", 4, ScanLayout::flat(odd * 7, 5000), Pattern::EveryKth, 333, 0},
        // The only hole sits deep in the buffer: the first unwritten element comes from a late block.
        {"fp32 256M, one unwritten element near the end", 4, ScanLayout::flat(1LL << 28, 1024), Pattern::AllButOne,
            (1LL << 28) - 4097, 0},
        {"fp16 flat, 64M + 3, all written", 2, ScanLayout::flat((1LL << 26) + 3, 1024), Pattern::All, 0, 0},
    };
    for (const auto& c : cases) runCase(c);
    {
        CoverageScanner scanner;
        GT_CHECK(!scanner.scanSecond(nullptr, nullptr).isOk()); // pass B needs pass A
    }
    return kwb::gputest::finish(kTestName);
}
