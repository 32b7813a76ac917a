#include "problems/coverage_grid.h"

#include <algorithm>

namespace kwb {

namespace {
std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int32_t clampResolution(std::int32_t r) { return std::clamp(r, std::int32_t{1}, kMaxCoverageResolution); }
} // namespace

Result<CoverageLayout> planCoverageLayout(std::span<const std::int64_t> shape, std::int32_t requestedRows,
    std::int32_t requestedCols)
{
    std::int64_t count = 1;
    for (auto e : shape) {
        if (e < 0) return Status(ErrorCode::InvalidArgument, "coverage layout: negative extent");
        if (__builtin_mul_overflow(count, e, &count))
            return Status(ErrorCode::InvalidArgument, "coverage layout: element count overflows 64 bits");
    }
    const std::int64_t reqRows = clampResolution(requestedRows);
    const std::int64_t reqCols = clampResolution(requestedCols);
    CoverageLayout l;
    if (count == 0) {
        l.flat = shape.size() <= 1;
        l.rows = shape.size() <= 1 ? 1 : 0;
        l.cols = shape.size() <= 1 ? 0 : shape.back();
        l.gridRows = 1;
        l.gridCols = 1;
        return l;
    }
    if (shape.size() <= 1) {
        l.flat = true;
        l.rows = 1;
        l.cols = count;
        const std::int64_t tiles = std::min<std::int64_t>(reqRows * reqCols, count);
        l.tileCols = ceilDiv(count, tiles);
        const std::int64_t needed = ceilDiv(count, l.tileCols);
        l.gridCols = static_cast<std::int32_t>(std::min(reqCols, needed));
        l.gridRows = static_cast<std::int32_t>(ceilDiv(needed, l.gridCols));
        return l;
    }
    l.cols = shape.back();
    l.rows = count / l.cols;
    l.tileRows = ceilDiv(l.rows, std::min(reqRows, l.rows));
    l.tileCols = ceilDiv(l.cols, std::min(reqCols, l.cols));
    l.gridRows = static_cast<std::int32_t>(ceilDiv(l.rows, l.tileRows));
    l.gridCols = static_cast<std::int32_t>(ceilDiv(l.cols, l.tileCols));
    return l;
}

std::int64_t tileOfElement(const CoverageLayout& l, std::int64_t i)
{
    if (i < 0 || i >= l.elementCount()) return -1;
    if (l.flat) return i / l.tileCols;
    const std::int64_t r = i / l.cols;
    const std::int64_t c = i % l.cols;
    return (r / l.tileRows) * l.gridCols + c / l.tileCols;
}

std::int64_t tileElementCount(const CoverageLayout& l, std::int64_t tile)
{
    if (tile < 0 || tile >= l.tileCount()) return 0;
    if (l.flat) return std::clamp<std::int64_t>(l.cols - tile * l.tileCols, 0, l.tileCols);
    const std::int64_t tr = tile / l.gridCols;
    const std::int64_t tc = tile % l.gridCols;
    const std::int64_t rows = std::clamp<std::int64_t>(l.rows - tr * l.tileRows, 0, l.tileRows);
    const std::int64_t cols = std::clamp<std::int64_t>(l.cols - tc * l.tileCols, 0, l.tileCols);
    return rows * cols;
}

CoverageGrid gridFromCounts(const CoverageLayout& l, std::span<const std::int64_t> writtenPerTile)
{
    CoverageGrid g;
    g.rows = l.gridRows;
    g.cols = l.gridCols;
    const std::int64_t tiles = l.tileCount();
    g.writtenFraction.resize(static_cast<std::size_t>(tiles), 1.0f);
    for (std::int64_t t = 0; t < tiles; ++t) {
        const std::int64_t n = tileElementCount(l, t);
        const std::int64_t w = t < static_cast<std::int64_t>(writtenPerTile.size()) ? writtenPerTile[t] : 0;
        g.writtenFraction[t] = n ? static_cast<float>(double(std::clamp<std::int64_t>(w, 0, n)) / double(n)) : 1.0f;
    }
    return g;
}

Coverage coverageFromCounts(const CoverageLayout& l, std::span<const std::int64_t> writtenPerTile,
    std::vector<std::int64_t> firstUnwritten)
{
    Coverage c;
    std::int64_t written = 0;
    for (auto w : writtenPerTile) written += w;
    c.writtenElements = written;
    c.totalElements = l.elementCount();
    c.writtenFraction = l.elementCount() ? double(written) / double(l.elementCount()) : 1.0;
    c.firstUnwritten = std::move(firstUnwritten);
    c.grid = gridFromCounts(l, writtenPerTile);
    return c;
}

Coverage scanCoverageHost(const CoverageLayout& l, std::span<const std::uint32_t> afterA,
    std::span<const std::uint32_t> afterB, std::uint32_t sentinelA, std::uint32_t sentinelB, std::size_t maxUnwritten)
{
    std::vector<std::int64_t> perTile(static_cast<std::size_t>(l.tileCount()), 0);
    std::vector<std::int64_t> unwritten;
    const std::int64_t n = std::min<std::int64_t>(l.elementCount(),
        static_cast<std::int64_t>(std::min(afterA.size(), afterB.size())));
    for (std::int64_t i = 0; i < n; ++i) {
        if (afterA[i] != sentinelA && afterB[i] != sentinelB) ++perTile[tileOfElement(l, i)];
        else if (unwritten.size() < maxUnwritten) unwritten.push_back(i);
    }
    for (std::int64_t i = n; i < l.elementCount() && unwritten.size() < maxUnwritten; ++i) unwritten.push_back(i);
    return coverageFromCounts(l, perTile, std::move(unwritten));
}

} // namespace kwb
