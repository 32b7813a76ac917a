#include "gpu/checks/output_checks.h"

#include <limits>
#include <vector>

#include "gpu/checks/input_generator.h"

namespace kwb::gpu {

void addCorrectnessTrial(OutputCheck& c, const OutputMetrics& m, bool zerosPass)
{
    ++c.trials;
    if (m.allclose) ++c.trialsPassed;
    c.zerosPass = c.zerosPass || zerosPass;
    const bool worse = c.trials == 1 || m.outOfToleranceShare > c.outOfToleranceShare ||
                       (m.outOfToleranceShare == c.outOfToleranceShare && m.relL2Error > c.relL2Error);
    if (worse) static_cast<OutputMetrics&>(c) = m;
}

void finishCorrectness(OutputCheck& c) { c.passed = c.trials > 0 && c.trialsPassed == c.trials; }

OutputMetrics shapeMismatchMetrics(std::int64_t referenceCount)
{
    const double inf = std::numeric_limits<double>::infinity();
    OutputMetrics m;
    m.count = referenceCount;
    m.allclose = false;
    m.outOfTolerance = referenceCount;
    m.outOfToleranceShare = 1.0;
    m.firstMismatch = 0;
    m.maxAbsError = inf;
    m.relL2Error = inf;
    m.maxErrorOverRefRms = inf;
    return m;
}

void addInputHashes(InputCheck& ic, std::uint64_t before, std::uint64_t after)
{
    if (ic.hashBefore.empty() || (!ic.mutated && before != after)) {
        ic.hashBefore = hashHex(before);
        ic.hashAfter = hashHex(after);
    }
    ic.mutated = ic.mutated || before != after;
}

ScanLayout scanLayoutFor(const CoverageLayout& l)
{
    ScanLayout s;
    s.rows = l.flat ? 1 : l.rows;
    s.cols = l.flat ? l.elementCount() : l.cols;
    s.tileRows = l.flat ? 1 : l.tileRows;
    s.tileCols = l.tileCols;
    return s;
}

OutputCoverage outputCoverageFrom(const std::string& output, const CoverageLayout& l, const CoverageCounts& counts,
    int elemBytes)
{
    // The scan numbers tiles row-major over its own grid, which is the layout's grid.
    std::vector<std::int64_t> perTile(static_cast<std::size_t>(l.tileCount()), 0);
    for (std::int64_t ty = 0; ty < counts.tilesY; ++ty)
        for (std::int64_t tx = 0; tx < counts.tilesX; ++tx) {
            const std::int64_t first = l.flat ? tx * l.tileCols : (ty * l.tileRows) * l.cols + tx * l.tileCols;
            const std::int64_t tile = tileOfElement(l, first);
            if (tile >= 0 && tile < l.tileCount())
                perTile[static_cast<std::size_t>(tile)] +=
                    counts.tileWritten[static_cast<std::size_t>(ty * counts.tilesX + tx)];
        }
    OutputCoverage oc;
    oc.output = output;
    oc.coverage = coverageFromCounts(l, perTile, counts.firstUnwritten);
    oc.sentinelA = static_cast<std::uint32_t>(sentinelBits(elemBytes, 0));
    oc.sentinelB = static_cast<std::uint32_t>(sentinelBits(elemBytes, 1));
    return oc;
}

} // namespace kwb::gpu
