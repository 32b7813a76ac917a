#pragma once
// Coverage: which output elements did a kernel write? The executor fills the
// outputs with sentinel A, runs the candidate, scans (pass A); fills with
// sentinel B, runs again, scans (pass B). An element counts as written only
// if it differs from its sentinel in both runs, so a kernel cannot pass by
// writing the one sentinel value, and stale data that happens to differ from
// one sentinel is still caught by the other.
//
// Each pass streams the output once into shared memory with Hopper bulk
// copies (core/gpu/bulk_copy.cuh) and compares it there. Pass A writes one bit
// per element (1/32 of the data for fp32); pass B ANDs its bits into pass A's
// and, in the same pass, counts what was written: in total, per tile of a
// coverage grid, and the first unwritten element. Needs an sm_90 or newer GPU.
//
// Thread: all calls on the executor thread; work is enqueued on `stream`.
// Buffers passed in must be 16-byte aligned and hold paddedBytes() bytes.
// One scanSecond() per scanFirst() (pass A also clears the tile counts).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "base/status.h"

namespace kwb::gpu {

// Element width in bytes: 2 (fp16, bf16, int16), 4 (fp32, int32), 8 (fp64, int64).
bool coverageSupportsWidth(int elemBytes);

// Sentinel bit patterns. For floats they are signalling NaNs with payloads
// that arithmetic never produces (GPU arithmetic yields the canonical quiet NaN).
std::uint64_t sentinelBits(int elemBytes, int which /* 0 = A, 1 = B */);

// Bytes to allocate for `elements` so that the scan's whole-warp 16-byte loads stay in bounds.
std::int64_t paddedBytes(std::int64_t elements, int elemBytes);

// How elements map to coverage-grid tiles: the output seen as rows x cols
// (row-major; rows = 1 for a flattened view), cut into tileRows x tileCols tiles.
struct ScanLayout {
    std::int64_t rows = 1;
    std::int64_t cols = 0;
    std::int64_t tileRows = 1;
    std::int64_t tileCols = 1;

    std::int64_t elements() const { return rows * cols; }
    std::int64_t tilesX() const { return (cols + tileCols - 1) / tileCols; }
    std::int64_t tilesY() const { return (rows + tileRows - 1) / tileRows; }
    // Flattened output of n elements cut into about `tiles` equal tiles.
    static ScanLayout flat(std::int64_t n, std::int64_t tiles);
};

struct CoverageCounts {
    std::int64_t elements = 0;
    std::int64_t written = 0;          // differs from its sentinel in both runs
    std::int64_t writtenFirstPass = 0; // differs from sentinel A in run A
    std::int64_t tilesX = 0;
    std::int64_t tilesY = 0;
    std::vector<std::int64_t> tileWritten; // tilesY x tilesX, row-major
    std::vector<std::int64_t> tileSize;    // elements per tile, same order
    std::vector<std::int64_t> firstUnwritten; // ascending, at most the requested count

    double writtenFraction() const { return elements ? static_cast<double>(written) / static_cast<double>(elements) : 1.0; }
};

class CoverageScanner {
public:
    CoverageScanner() = default;
    CoverageScanner(const CoverageScanner&) = delete;
    CoverageScanner& operator=(const CoverageScanner&) = delete;
    ~CoverageScanner();

    // Fills a padded buffer with sentinel `which`.
    static Status fill(void* data, std::int64_t elements, int elemBytes, int which, cudaStream_t stream);

    // Pass A: compare with sentinel A and remember which elements were written.
    Status scanFirst(const void* data, const ScanLayout& layout, int elemBytes, cudaStream_t stream);
    // Pass B: compare with sentinel B, combine with pass A, tally counts per tile.
    Status scanSecond(const void* data, cudaStream_t stream);
    // Waits for the stream and copies the results back.
    Result<CoverageCounts> collect(int maxFirstUnwritten, cudaStream_t stream);

private:
    Status reserve(std::int64_t maskWords, std::int64_t counterWords);

    ScanLayout m_layout;
    int m_elemBytes = 4;
    std::uint32_t* m_mask = nullptr;
    // Unwritten elements per tile, then pass A's per-block written counts,
    // then pass B's per-block written counts and first unwritten elements:
    // no atomics on totals and nothing to clear between runs; collect() adds them up.
    unsigned long long* m_counters = nullptr;
    std::int64_t m_maskCapacity = 0;
    std::int64_t m_counterCapacity = 0;
    int m_gridA = 0;
    int m_gridB = 0;
    bool m_smemHistogram = false; // pass B counts tiles in shared memory first
    bool m_haveFirst = false;     // scanFirst ran and scanSecond has not
    int m_smCount = 0;
    int m_ccMajor = 0;
};

} // namespace kwb::gpu
