#include "commands.h"

namespace kwb::cli {

const std::vector<Command>& commands()
{
    static const std::vector<Command> table{
        {"summary", "Statistics of evaluation records (correctness, fast_p, speedups, pass@k)", runSummary},
        {"breakdown", "GPU time of profiler traces by kernel family; the addressable fraction", runBreakdown},
        {"project", "Expected end-to-end saving on a traced workload: f*w*(1-1/s) and the Amdahl bound", runProject},
        {"rerun", "Re-run candidate kernels of a problem on the local GPU: correctness, coverage, timing, flags", runRerun},
        {"verify", "Re-run evaluation records in batch and write them with verification fields (resumable)", runVerify},
        {"slurm", "Run a verify batch as a Slurm job array: submit, status, resubmit, merge", runSlurm},
        {"zeros", "Zero acceptance of KernelBench problems: would all zeros or a constant pass allclose?", runZeros},
        {"reflag", "Re-derive verified records' flags from their stored re-runs under today's rules (no GPU)", runReflag},
        {"matrix", "The exploit x check matrix of fixture re-runs: which check caught which exploit", runMatrix},
        {"figures", "Render the standard paper figures of a project (PDF, SVG, PNG) without a display", runFigures},
    };
    return table;
}

} // namespace kwb::cli
