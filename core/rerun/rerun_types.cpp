#include "rerun/rerun_types.h"

#include <algorithm>
#include <cmath>

#include "analysis/statistics.h"

namespace kwb {

const std::vector<std::string_view>& allCheckNames()
{
    static const std::vector<std::string_view> names{check::kCoverage, check::kCorrectness, check::kDeterminism,
        check::kInputHashes, check::kTiming, check::kFreshInputs, check::kPostTiming, check::kPersistingL2Reset,
        check::kHostTimer, check::kOwnKernels, check::kPerCall, check::kSanitizer, check::kAdversarial,
        check::kIsolation};
    return names;
}

double sanitizerToolLimitS(double timeoutS)
{
    return std::max(10.0, timeoutS * 10.0);
}

bool isSanitizerTool(std::string_view tool)
{
    return tool == "memcheck" || tool == "initcheck" || tool == "racecheck" || tool == "synccheck";
}

double replyDeadlineS(const RerunOptions& options)
{
    // + 5 s per tool: the tool's own start-up and the log read after its limit fires.
    return options.timeoutS + static_cast<double>(options.sanitize.size()) * (sanitizerToolLimitS(options.timeoutS) + 5.0);
}

double TimingStats::correctedMedianMs() const
{
    return eventOverheadMs ? std::max(0.0, medianMs - *eventOverheadMs) : medianMs;
}

TimingStats summarizeTimings(std::vector<double> samples, bool keepSamples)
{
    TimingStats t;
    t.trials = static_cast<std::int32_t>(samples.size());
    if (samples.empty()) return t;
    if (keepSamples) t.samplesMs = samples;
    std::sort(samples.begin(), samples.end());
    // The one quantile definition of the code base (numpy's linear interpolation).
    t.medianMs = quantile(samples, 0.5).value_or(0.0);
    t.q1Ms = quantile(samples, 0.25).value_or(0.0);
    t.q3Ms = quantile(samples, 0.75).value_or(0.0);
    t.iqrMs = t.q3Ms - t.q1Ms;
    t.minMs = samples.front();
    t.maxMs = samples.back();
    double sum = 0.0;
    for (double s : samples) sum += s;
    t.meanMs = sum / double(samples.size());
    double var = 0.0;
    for (double s : samples) var += (s - t.meanMs) * (s - t.meanMs);
    // Sample standard deviation (n - 1), as torch.std / numpy ddof=1.
    t.stdMs = samples.size() > 1 ? std::sqrt(var / double(samples.size() - 1)) : 0.0;
    t.cv = t.meanMs > 0 ? t.stdMs / t.meanMs : 0.0;
    return t;
}

} // namespace kwb
