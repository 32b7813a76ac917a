#pragma once
// Coverage-grid math: how an output is cut into tiles for a requested
// resolution, which tile an element falls in, and the grid of written
// fractions from per-tile written counts. The GPU scan (core/gpu) counts per
// tile with this layout; the host reference below checks it in tests.
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "records/eval_record.h"

namespace kwb {

// The output viewed as a matrix: a tensor of rank >= 2 is [prod(leading
// extents), last extent]; a rank-1 (or rank-0) tensor is flattened and laid
// out row-major over the grid, tile t covering elements [t*tileCols, ...).
// Tiles are tileRows x tileCols elements; edge tiles may be smaller.
struct CoverageLayout {
    bool flat = false;            // rank <= 1: contiguous chunks instead of 2-D tiles
    std::int64_t rows = 0;        // matrix view of the output (flat: 1 x count)
    std::int64_t cols = 0;
    std::int32_t gridRows = 0;
    std::int32_t gridCols = 0;
    std::int64_t tileRows = 1;    // 2-D: elements per tile along rows
    std::int64_t tileCols = 1;    // 2-D: along columns; flat: elements per tile
    std::int64_t elementCount() const { return rows * cols; }
    std::int64_t tileCount() const { return std::int64_t{gridRows} * gridCols; }
};

inline constexpr std::int32_t kMaxCoverageResolution = 4096;

// At most `requestedRows` x `requestedCols` tiles (each clamped to [1,
// kMaxCoverageResolution]); never more tiles than elements along a dimension.
// A flat output uses requestedRows*requestedCols chunks arranged in that grid.
Result<CoverageLayout> planCoverageLayout(std::span<const std::int64_t> shape, std::int32_t requestedRows,
    std::int32_t requestedCols);

// Tile (row-major tile index) of a flat element index; -1 when out of range.
std::int64_t tileOfElement(const CoverageLayout& layout, std::int64_t flatIndex);
// Elements in tile `tile` (edge tiles are smaller; empty trailing flat tiles are 0).
std::int64_t tileElementCount(const CoverageLayout& layout, std::int64_t tile);

// Grid of written fractions from per-tile written counts (size tileCount()).
// A tile with no elements counts as fully written.
CoverageGrid gridFromCounts(const CoverageLayout& layout, std::span<const std::int64_t> writtenPerTile);

// Coverage record from the scan's results.
Coverage coverageFromCounts(const CoverageLayout& layout, std::span<const std::int64_t> writtenPerTile,
    std::vector<std::int64_t> firstUnwritten);

// Host reference of the scan over 32-bit elements: element i is written iff
// afterA[i] != sentinelA and afterB[i] != sentinelB. Keeps the first
// `maxUnwritten` unwritten indices.
Coverage scanCoverageHost(const CoverageLayout& layout, std::span<const std::uint32_t> afterA,
    std::span<const std::uint32_t> afterB, std::uint32_t sentinelA, std::uint32_t sentinelB,
    std::size_t maxUnwritten = 16);

} // namespace kwb
