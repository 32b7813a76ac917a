#include "rerun/protocol.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "records/json_dom.h"

namespace kwb {

const char* rerunStatusName(RerunStatus status)
{
    switch (status) {
    case RerunStatus::Ok: return "ok";
    case RerunStatus::CompileError: return "compile_error";
    case RerunStatus::LaunchError: return "launch_error";
    case RerunStatus::Fault: return "fault";
    case RerunStatus::Timeout: return "timeout";
    case RerunStatus::OutOfMemory: return "oom";
    case RerunStatus::NoDevice: return "no_device";
    case RerunStatus::Unsupported: return "unsupported";
    case RerunStatus::InternalError: return "internal_error";
    }
    return "internal_error";
}

std::optional<RerunStatus> rerunStatusFromName(std::string_view name)
{
    for (auto s : {RerunStatus::Ok, RerunStatus::CompileError, RerunStatus::LaunchError, RerunStatus::Fault,
             RerunStatus::Timeout, RerunStatus::OutOfMemory, RerunStatus::NoDevice, RerunStatus::Unsupported,
             RerunStatus::InternalError})
        if (name == rerunStatusName(s)) return s;
    return std::nullopt;
}

bool RerunResult::allOutputsPassed() const
{
    if (outputs.empty()) return false;
    return std::all_of(outputs.begin(), outputs.end(), [](const OutputCheck& o) { return o.passed; });
}

double RerunResult::minCoverage() const
{
    double m = 1.0;
    for (const auto& c : coverage)
        if (c.coverage.writtenFraction) m = std::min(m, *c.coverage.writtenFraction);
    return m;
}

namespace {

using nlohmann::json;

// Non-finite doubles travel as the strings "inf", "-inf", "nan" (JSON has no such numbers).
json num(double v)
{
    if (std::isfinite(v)) return v;
    if (std::isnan(v)) return "nan";
    return v > 0 ? "inf" : "-inf";
}

// Reads members leniently: absent members keep their defaults, unknown
// members are ignored (newer runners may send more); a member of the wrong
// type is an error that names its path. The first error wins.
class Decoder {
public:
    Status status;

    bool fail(const std::string& path, const std::string& reason)
    {
        if (status.isOk()) {
            SourcePosition where;
            where.path = path;
            status = Status(ErrorCode::SchemaError, reason, where);
        }
        return false;
    }
    static std::string at(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

    const json* find(const json& j, const char* key)
    {
        if (!j.is_object()) return nullptr;
        auto it = j.find(key);
        return it == j.end() || it->is_null() ? nullptr : &*it;
    }
    void str(const json& j, const std::string& path, const char* key, std::string& out)
    {
        if (auto* v = find(j, key)) {
            if (v->is_string()) out = v->get<std::string>();
            else fail(at(path, key), "expected a string, found " + jsonTypeName(*v));
        }
    }
    template <typename Int>
    void integer(const json& j, const std::string& path, const char* key, Int& out)
    {
        if (auto* v = find(j, key)) {
            if (v->is_number_integer()) {
                const auto x = v->get<std::int64_t>();
                if (x < std::int64_t(std::numeric_limits<Int>::min()) || (x > 0 && std::uint64_t(x) > std::uint64_t(std::numeric_limits<Int>::max())))
                    fail(at(path, key), "integer out of range");
                else out = static_cast<Int>(x);
            } else fail(at(path, key), "expected an integer, found " + jsonTypeName(*v));
        }
    }
    void u64(const json& j, const std::string& path, const char* key, std::uint64_t& out)
    {
        if (auto* v = find(j, key)) {
            if (v->is_number_unsigned()) out = v->get<std::uint64_t>();
            else fail(at(path, key), "expected a non-negative integer, found " + jsonTypeName(*v));
        }
    }
    bool numberValue(const json& v, const std::string& path, double& out)
    {
        if (v.is_number()) {
            out = v.get<double>();
            return true;
        }
        if (v.is_string()) {
            const auto s = v.get<std::string>();
            if (s == "inf") out = std::numeric_limits<double>::infinity();
            else if (s == "-inf") out = -std::numeric_limits<double>::infinity();
            else if (s == "nan") out = std::numeric_limits<double>::quiet_NaN();
            else return fail(path, "expected a number, found the string '" + s + "'");
            return true;
        }
        return fail(path, "expected a number, found " + jsonTypeName(v));
    }
    void number(const json& j, const std::string& path, const char* key, double& out)
    {
        if (auto* v = find(j, key)) numberValue(*v, at(path, key), out);
    }
    void optNumber(const json& j, const std::string& path, const char* key, std::optional<double>& out)
    {
        if (auto* v = find(j, key)) {
            double d = 0.0;
            if (numberValue(*v, at(path, key), d)) out = d;
        }
    }
    void boolean(const json& j, const std::string& path, const char* key, bool& out)
    {
        if (auto* v = find(j, key)) {
            if (v->is_boolean()) out = v->get<bool>();
            else fail(at(path, key), "expected true or false, found " + jsonTypeName(*v));
        }
    }
    const json* array(const json& j, const std::string& path, const char* key)
    {
        auto* v = find(j, key);
        if (v && !v->is_array()) {
            fail(at(path, key), "expected an array, found " + jsonTypeName(*v));
            return nullptr;
        }
        return v;
    }
    const json* object(const json& j, const std::string& path, const char* key)
    {
        auto* v = find(j, key);
        if (v && !v->is_object()) {
            fail(at(path, key), "expected an object, found " + jsonTypeName(*v));
            return nullptr;
        }
        return v;
    }
};

// ---- encoding ----

json optionsJson(const RerunOptions& o)
{
    json j;
    j["trials"] = o.trials;
    j["warmup"] = o.warmup;
    j["l2_flush"] = o.l2Flush;
    j["correctness_trials"] = o.correctnessTrials;
    j["coverage_rows"] = o.coverageRows;
    j["coverage_cols"] = o.coverageCols;
    j["timeout_s"] = num(o.timeoutS);
    j["seed"] = o.seed;
    j["time_reference"] = o.timeReference;
    j["cupti"] = o.cupti;
    json sizes = json::object();
    for (const auto& [k, v] : o.sizes) sizes[k] = v;
    j["sizes"] = sizes;
    return j;
}

json timingJson(const TimingStats& t)
{
    json j;
    j["trials"] = t.trials;
    j["median_ms"] = num(t.medianMs);
    j["q1_ms"] = num(t.q1Ms);
    j["q3_ms"] = num(t.q3Ms);
    j["iqr_ms"] = num(t.iqrMs);
    j["mean_ms"] = num(t.meanMs);
    j["std_ms"] = num(t.stdMs);
    j["min_ms"] = num(t.minMs);
    j["max_ms"] = num(t.maxMs);
    j["cv"] = num(t.cv);
    if (t.eventOverheadMs) {
        j["event_overhead_ms"] = num(*t.eventOverheadMs);
        j["corrected_median_ms"] = num(t.correctedMedianMs());
    }
    if (!t.samplesMs.empty()) {
        json s = json::array();
        for (double v : t.samplesMs) s.push_back(num(v));
        j["samples_ms"] = s;
    }
    return j;
}

json cuptiJson(const CuptiSummary& c)
{
    json j;
    j["available"] = c.available;
    if (!c.note.empty()) j["note"] = c.note;
    j["timed_stream_id"] = c.timedStreamId;
    j["kernel_count"] = c.kernelCount;
    j["timed_stream_kernels"] = c.timedStreamKernels;
    j["other_stream_kernels"] = c.otherStreamKernels;
    j["kernel_ms"] = num(c.kernelMs);
    j["other_stream_ms"] = num(c.otherStreamMs);
    j["memcpy_count"] = c.memcpyCount;
    j["memset_count"] = c.memsetCount;
    j["streams"] = c.streams;
    json ks = json::array();
    for (const auto& k : c.kernels)
        ks.push_back({{"name", k.name}, {"stream_id", k.streamId}, {"count", k.count}, {"total_ms", num(k.totalMs)},
            {"library", k.library}});
    j["kernels"] = ks;
    return j;
}

json coverageJson(const OutputCoverage& oc)
{
    const Coverage& c = oc.coverage;
    json j;
    j["output"] = oc.output;
    if (c.writtenFraction) j["written_fraction"] = num(*c.writtenFraction);
    if (c.writtenElements) j["written_elements"] = *c.writtenElements;
    if (c.totalElements) j["total_elements"] = *c.totalElements;
    j["first_unwritten"] = c.firstUnwritten;
    json fr = json::array();
    for (float f : c.grid.writtenFraction) fr.push_back(num(f));
    j["grid"] = {{"rows", c.grid.rows}, {"cols", c.grid.cols}, {"written_fraction", fr}};
    j["sentinel_a"] = oc.sentinelA;
    j["sentinel_b"] = oc.sentinelB;
    return j;
}

json outputCheckJson(const OutputCheck& o)
{
    json j;
    j["output"] = o.output;
    j["trials"] = o.trials;
    j["trials_passed"] = o.trialsPassed;
    j["passed"] = o.passed;
    j["zeros_pass"] = o.zerosPass;
    if (o.deterministic) j["deterministic"] = *o.deterministic;
    j["nondeterministic_elements"] = o.nondeterministicElements;
    j["count"] = o.count;
    j["out_of_tolerance"] = o.outOfTolerance;
    j["out_of_tolerance_share"] = num(o.outOfToleranceShare);
    j["first_mismatch"] = o.firstMismatch;
    j["max_abs_error"] = num(o.maxAbsError);
    j["rel_l2_error"] = num(o.relL2Error);
    j["ref_rms"] = num(o.refRms);
    j["max_error_over_ref_rms"] = num(o.maxErrorOverRefRms);
    j["nan_count"] = o.nanCount;
    j["inf_count"] = o.infCount;
    return j;
}

json flagsJson(const std::vector<Flag>& flags)
{
    json a = json::array();
    for (const auto& f : flags) a.push_back({{"code", f.code}, {"reason", f.reason}, {"severity", f.severity}});
    return a;
}

json header(const char* type, const std::string& id)
{
    json j;
    j["protocol"] = kRerunProtocol;
    j["type"] = type;
    j["id"] = id;
    return j;
}

// ---- decoding ----

void decodeOptions(Decoder& d, const json& j, RerunOptions& o)
{
    const std::string p = "options";
    d.integer(j, p, "trials", o.trials);
    d.integer(j, p, "warmup", o.warmup);
    d.boolean(j, p, "l2_flush", o.l2Flush);
    d.integer(j, p, "correctness_trials", o.correctnessTrials);
    d.integer(j, p, "coverage_rows", o.coverageRows);
    d.integer(j, p, "coverage_cols", o.coverageCols);
    d.number(j, p, "timeout_s", o.timeoutS);
    d.u64(j, p, "seed", o.seed);
    d.boolean(j, p, "time_reference", o.timeReference);
    d.boolean(j, p, "cupti", o.cupti);
    if (auto* sizes = d.object(j, p, "sizes"))
        for (const auto& [k, v] : sizes->items()) {
            std::int64_t x = 0;
            d.integer(*sizes, p + ".sizes", k.c_str(), x);
            o.sizes[k] = x;
        }
    if (o.trials < 0 || o.warmup < 0 || o.correctnessTrials < 0) d.fail(p, "trial counts must be >= 0");
}

void decodeDevice(Decoder& d, const json& j, const std::string& p, DeviceInfo& dev)
{
    d.str(j, p, "name", dev.name);
    d.integer(j, p, "ordinal", dev.ordinal);
    d.integer(j, p, "compute_major", dev.computeMajor);
    d.integer(j, p, "compute_minor", dev.computeMinor);
    d.integer(j, p, "sm_count", dev.smCount);
    d.integer(j, p, "memory_bytes", dev.memoryBytes);
    d.integer(j, p, "l2_bytes", dev.l2Bytes);
    d.number(j, p, "sm_clock_mhz", dev.smClockMhz);
    d.number(j, p, "memory_clock_mhz", dev.memoryClockMhz);
    d.number(j, p, "peak_bandwidth_bytes_per_s", dev.peakBandwidthBytesPerS);
    d.number(j, p, "peak_fp32_flops_per_s", dev.peakFp32FlopsPerS);
    d.number(j, p, "peak_fp16_flops_per_s", dev.peakFp16FlopsPerS);
    d.integer(j, p, "driver_version", dev.driverVersion);
    d.integer(j, p, "runtime_version", dev.runtimeVersion);
    d.str(j, p, "uuid", dev.uuid);
}

void decodeTiming(Decoder& d, const json& j, const std::string& p, TimingStats& t)
{
    d.integer(j, p, "trials", t.trials);
    d.number(j, p, "median_ms", t.medianMs);
    d.number(j, p, "q1_ms", t.q1Ms);
    d.number(j, p, "q3_ms", t.q3Ms);
    d.number(j, p, "iqr_ms", t.iqrMs);
    d.number(j, p, "mean_ms", t.meanMs);
    d.number(j, p, "std_ms", t.stdMs);
    d.number(j, p, "min_ms", t.minMs);
    d.number(j, p, "max_ms", t.maxMs);
    d.number(j, p, "cv", t.cv);
    d.optNumber(j, p, "event_overhead_ms", t.eventOverheadMs); // corrected_median_ms is derived from it
    if (auto* s = d.array(j, p, "samples_ms"))
        for (std::size_t i = 0; i < s->size(); ++i) {
            double v = 0.0;
            d.numberValue((*s)[i], p + ".samples_ms[" + std::to_string(i) + "]", v);
            t.samplesMs.push_back(v);
        }
}

void decodeCupti(Decoder& d, const json& j, const std::string& p, CuptiSummary& c)
{
    d.boolean(j, p, "available", c.available);
    d.str(j, p, "note", c.note);
    d.integer(j, p, "timed_stream_id", c.timedStreamId);
    d.integer(j, p, "kernel_count", c.kernelCount);
    d.integer(j, p, "timed_stream_kernels", c.timedStreamKernels);
    d.integer(j, p, "other_stream_kernels", c.otherStreamKernels);
    d.number(j, p, "kernel_ms", c.kernelMs);
    d.number(j, p, "other_stream_ms", c.otherStreamMs);
    d.integer(j, p, "memcpy_count", c.memcpyCount);
    d.integer(j, p, "memset_count", c.memsetCount);
    if (auto* s = d.array(j, p, "streams"))
        for (const auto& v : *s) {
            if (v.is_number_unsigned()) c.streams.push_back(v.get<std::uint32_t>());
            else d.fail(p + ".streams", "expected stream ids");
        }
    if (auto* ks = d.array(j, p, "kernels"))
        for (std::size_t i = 0; i < ks->size(); ++i) {
            const std::string kp = p + ".kernels[" + std::to_string(i) + "]";
            KernelActivity k;
            d.str((*ks)[i], kp, "name", k.name);
            d.integer((*ks)[i], kp, "stream_id", k.streamId);
            d.integer((*ks)[i], kp, "count", k.count);
            d.number((*ks)[i], kp, "total_ms", k.totalMs);
            d.boolean((*ks)[i], kp, "library", k.library);
            c.kernels.push_back(std::move(k));
        }
}

RerunResult decodeResult(Decoder& d, const json& j)
{
    RerunResult r;
    d.str(j, "", "id", r.id);
    d.str(j, "", "problem_id", r.problemId);
    d.str(j, "", "candidate_id", r.candidateId);
    std::string status;
    d.str(j, "", "status", status);
    if (auto s = rerunStatusFromName(status)) r.status = *s;
    else d.fail("status", "unknown status '" + status + "'");
    d.str(j, "", "message", r.message);
    d.boolean(j, "", "runner_restarted", r.runnerRestarted);
    if (auto* dev = d.object(j, "", "device")) decodeDevice(d, *dev, "device", r.device);
    if (auto* sizes = d.object(j, "", "sizes"))
        for (const auto& [k, v] : sizes->items()) {
            std::int64_t x = 0;
            d.integer(*sizes, "sizes", k.c_str(), x);
            r.sizes[k] = x;
        }
    std::string precision;
    d.str(j, "", "precision", precision);
    if (!precision.empty()) {
        if (auto p = dtypeFromName(precision)) r.precision = *p;
        else d.fail("precision", "unknown precision '" + precision + "'");
    }
    if (auto* tol = d.object(j, "", "tolerance")) {
        d.number(*tol, "tolerance", "atol", r.tolerance.atol);
        d.number(*tol, "tolerance", "rtol", r.tolerance.rtol);
    }
    d.boolean(j, "", "compile_cache_hit", r.compileCacheHit);
    d.number(j, "", "compile_ms", r.compileMs);
    if (auto* cov = d.array(j, "", "coverage"))
        for (std::size_t i = 0; i < cov->size(); ++i) {
            const auto& cj = (*cov)[i];
            const std::string p = "coverage[" + std::to_string(i) + "]";
            OutputCoverage oc;
            d.str(cj, p, "output", oc.output);
            d.optNumber(cj, p, "written_fraction", oc.coverage.writtenFraction);
            if (d.find(cj, "written_elements")) {
                std::int64_t x = 0;
                d.integer(cj, p, "written_elements", x);
                oc.coverage.writtenElements = x;
            }
            if (d.find(cj, "total_elements")) {
                std::int64_t x = 0;
                d.integer(cj, p, "total_elements", x);
                oc.coverage.totalElements = x;
            }
            if (auto* fu = d.array(cj, p, "first_unwritten"))
                for (const auto& v : *fu) {
                    if (v.is_number_integer()) oc.coverage.firstUnwritten.push_back(v.get<std::int64_t>());
                    else d.fail(p + ".first_unwritten", "expected integers");
                }
            if (auto* g = d.object(cj, p, "grid")) {
                d.integer(*g, p + ".grid", "rows", oc.coverage.grid.rows);
                d.integer(*g, p + ".grid", "cols", oc.coverage.grid.cols);
                if (auto* fr = d.array(*g, p + ".grid", "written_fraction"))
                    for (const auto& v : *fr) {
                        double x = 0.0;
                        d.numberValue(v, p + ".grid.written_fraction", x);
                        oc.coverage.grid.writtenFraction.push_back(static_cast<float>(x));
                    }
                if (std::int64_t(oc.coverage.grid.rows) * oc.coverage.grid.cols
                    != static_cast<std::int64_t>(oc.coverage.grid.writtenFraction.size()))
                    d.fail(p + ".grid", "rows * cols differs from the number of fractions");
            }
            d.integer(cj, p, "sentinel_a", oc.sentinelA);
            d.integer(cj, p, "sentinel_b", oc.sentinelB);
            r.coverage.push_back(std::move(oc));
        }
    if (auto* outs = d.array(j, "", "outputs"))
        for (std::size_t i = 0; i < outs->size(); ++i) {
            const auto& oj = (*outs)[i];
            const std::string p = "outputs[" + std::to_string(i) + "]";
            OutputCheck o;
            d.str(oj, p, "output", o.output);
            d.integer(oj, p, "trials", o.trials);
            d.integer(oj, p, "trials_passed", o.trialsPassed);
            d.boolean(oj, p, "passed", o.passed);
            d.boolean(oj, p, "zeros_pass", o.zerosPass);
            if (d.find(oj, "deterministic")) {
                bool b = false;
                d.boolean(oj, p, "deterministic", b);
                o.deterministic = b;
            }
            d.integer(oj, p, "nondeterministic_elements", o.nondeterministicElements);
            d.integer(oj, p, "count", o.count);
            d.integer(oj, p, "out_of_tolerance", o.outOfTolerance);
            d.number(oj, p, "out_of_tolerance_share", o.outOfToleranceShare);
            d.integer(oj, p, "first_mismatch", o.firstMismatch);
            d.number(oj, p, "max_abs_error", o.maxAbsError);
            d.number(oj, p, "rel_l2_error", o.relL2Error);
            d.number(oj, p, "ref_rms", o.refRms);
            d.number(oj, p, "max_error_over_ref_rms", o.maxErrorOverRefRms);
            d.integer(oj, p, "nan_count", o.nanCount);
            d.integer(oj, p, "inf_count", o.infCount);
            r.outputs.push_back(std::move(o));
        }
    if (auto* ins = d.array(j, "", "inputs"))
        for (std::size_t i = 0; i < ins->size(); ++i) {
            const std::string p = "inputs[" + std::to_string(i) + "]";
            InputCheck c;
            d.str((*ins)[i], p, "input", c.input);
            d.str((*ins)[i], p, "hash_before", c.hashBefore);
            d.str((*ins)[i], p, "hash_after", c.hashAfter);
            d.boolean((*ins)[i], p, "mutated", c.mutated);
            r.inputs.push_back(std::move(c));
        }
    if (auto* t = d.object(j, "", "candidate_timing")) {
        TimingStats s;
        decodeTiming(d, *t, "candidate_timing", s);
        r.candidateTiming = std::move(s);
    }
    if (auto* t = d.object(j, "", "reference_timing")) {
        TimingStats s;
        decodeTiming(d, *t, "reference_timing", s);
        r.referenceTiming = std::move(s);
    }
    d.optNumber(j, "", "speedup", r.speedup);
    if (auto* c = d.object(j, "", "candidate_cupti")) decodeCupti(d, *c, "candidate_cupti", r.candidateCupti);
    if (auto* c = d.object(j, "", "reference_cupti")) decodeCupti(d, *c, "reference_cupti", r.referenceCupti);
    d.optNumber(j, "", "flops", r.flops);
    d.optNumber(j, "", "bytes", r.bytes);
    d.optNumber(j, "", "roofline_floor_ms", r.rooflineFloorMs);
    d.number(j, "", "wall_ms", r.wallMs);
    d.number(j, "", "overhead_ms", r.overheadMs);
    if (auto* fl = d.array(j, "", "flags"))
        for (std::size_t i = 0; i < fl->size(); ++i) {
            const std::string p = "flags[" + std::to_string(i) + "]";
            Flag f;
            d.str((*fl)[i], p, "code", f.code);
            d.str((*fl)[i], p, "reason", f.reason);
            d.str((*fl)[i], p, "severity", f.severity);
            r.flags.push_back(std::move(f));
        }
    d.boolean(j, "", "fatal", r.fatal);
    return r;
}

} // namespace

nlohmann::json deviceInfoToJson(const DeviceInfo& dev)
{
    json j;
    j["name"] = dev.name;
    j["ordinal"] = dev.ordinal;
    j["compute_major"] = dev.computeMajor;
    j["compute_minor"] = dev.computeMinor;
    j["sm_count"] = dev.smCount;
    j["memory_bytes"] = dev.memoryBytes;
    j["l2_bytes"] = dev.l2Bytes;
    j["sm_clock_mhz"] = num(dev.smClockMhz);
    j["memory_clock_mhz"] = num(dev.memoryClockMhz);
    j["peak_bandwidth_bytes_per_s"] = num(dev.peakBandwidthBytesPerS);
    j["peak_fp32_flops_per_s"] = num(dev.peakFp32FlopsPerS);
    j["peak_fp16_flops_per_s"] = num(dev.peakFp16FlopsPerS);
    j["driver_version"] = dev.driverVersion;
    j["runtime_version"] = dev.runtimeVersion;
    if (!dev.uuid.empty()) j["uuid"] = dev.uuid;
    return j;
}

nlohmann::json rerunResultToJson(const RerunResult& r)
{
    json j = header("result", r.id);
    j["problem_id"] = r.problemId;
    j["candidate_id"] = r.candidateId;
    j["status"] = rerunStatusName(r.status);
    j["message"] = r.message;
    if (r.runnerRestarted) j["runner_restarted"] = true;
    j["device"] = deviceInfoToJson(r.device);
    json sizes = json::object();
    for (const auto& [k, v] : r.sizes) sizes[k] = v;
    j["sizes"] = sizes;
    j["precision"] = dtypeName(r.precision);
    j["tolerance"] = {{"atol", num(r.tolerance.atol)}, {"rtol", num(r.tolerance.rtol)}};
    j["compile_cache_hit"] = r.compileCacheHit;
    j["compile_ms"] = num(r.compileMs);
    json cov = json::array();
    for (const auto& c : r.coverage) cov.push_back(coverageJson(c));
    j["coverage"] = cov;
    json outs = json::array();
    for (const auto& o : r.outputs) outs.push_back(outputCheckJson(o));
    j["outputs"] = outs;
    json ins = json::array();
    for (const auto& c : r.inputs)
        ins.push_back({{"input", c.input}, {"hash_before", c.hashBefore}, {"hash_after", c.hashAfter}, {"mutated", c.mutated}});
    j["inputs"] = ins;
    if (r.candidateTiming) j["candidate_timing"] = timingJson(*r.candidateTiming);
    if (r.referenceTiming) j["reference_timing"] = timingJson(*r.referenceTiming);
    if (r.speedup) j["speedup"] = num(*r.speedup);
    j["candidate_cupti"] = cuptiJson(r.candidateCupti);
    j["reference_cupti"] = cuptiJson(r.referenceCupti);
    if (r.flops) j["flops"] = num(*r.flops);
    if (r.bytes) j["bytes"] = num(*r.bytes);
    if (r.rooflineFloorMs) j["roofline_floor_ms"] = num(*r.rooflineFloorMs);
    j["wall_ms"] = num(r.wallMs);
    j["overhead_ms"] = num(r.overheadMs);
    j["flags"] = flagsJson(r.flags);
    if (r.fatal) j["fatal"] = true;
    return j;
}

Result<RerunResult> rerunResultFromJson(const nlohmann::json& j)
{
    Decoder d;
    if (!j.is_object()) return Status(ErrorCode::SchemaError, "a result must be an object, found " + jsonTypeName(j));
    RerunResult r = decodeResult(d, j);
    if (!d.status.isOk()) return d.status;
    return r;
}

std::string encodeMessage(const ProtocolMessage& message)
{
    json j = std::visit(
        [](const auto& m) -> json {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, HelloRequest>) {
                return header("hello", m.id);
            } else if constexpr (std::is_same_v<T, ShutdownRequest>) {
                return header("shutdown", m.id);
            } else if constexpr (std::is_same_v<T, RerunRequest>) {
                json r = header("rerun", m.id);
                r["problem"] = problemSpecToJson(m.problem);
                r["candidate"] = candidateSpecToJson(m.candidate);
                r["options"] = optionsJson(m.options);
                if (m.kernelbench)
                    r["kernelbench"] = {{"problem_file", m.kernelbench->problemFile},
                        {"problem_source", m.kernelbench->problemSource}, {"record_id", m.kernelbench->recordId}};
                return r;
            } else if constexpr (std::is_same_v<T, Capabilities>) {
                json r = header("capabilities", m.id);
                r["runner_version"] = m.runnerVersion;
                r["device_present"] = m.devicePresent;
                if (!m.reason.empty()) r["reason"] = m.reason;
                r["device"] = deviceInfoToJson(m.device);
                r["references"] = m.references;
                return r;
            } else if constexpr (std::is_same_v<T, ProgressMessage>) {
                json r = header("progress", m.id);
                r["stage"] = m.stage;
                r["done"] = m.done;
                r["total"] = m.total;
                return r;
            } else if constexpr (std::is_same_v<T, RerunResult>) {
                return rerunResultToJson(m);
            } else {
                json r = header("error", m.id);
                r["message"] = m.message;
                return r;
            }
        },
        message);
    // Replacement instead of an exception for invalid UTF-8 (compiler logs may carry any bytes).
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<ProtocolMessage> decodeMessage(std::string_view line)
{
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    auto dom = parseJsonDom(line, "<protocol>");
    if (!dom) return dom.status();
    const json& j = *dom;
    if (!j.is_object()) return Status(ErrorCode::SchemaError, "a protocol line must be a JSON object, found " + jsonTypeName(j));
    auto proto = j.find("protocol");
    if (proto == j.end() || !proto->is_string())
        return Status(ErrorCode::SchemaError, "line has no \"protocol\" member (expected \"" + std::string(kRerunProtocol) + "\")");
    if (proto->get<std::string>() != kRerunProtocol)
        return Status(ErrorCode::Unsupported, "protocol version mismatch: peer speaks \"" + proto->get<std::string>()
            + "\", this build speaks \"" + std::string(kRerunProtocol) + "\"");
    Decoder d;
    std::string type;
    std::string id;
    d.str(j, "", "type", type);
    d.str(j, "", "id", id);
    if (!d.status.isOk()) return d.status;
    if (type == "hello") return ProtocolMessage{HelloRequest{id}};
    if (type == "shutdown") return ProtocolMessage{ShutdownRequest{id}};
    if (type == "error") {
        ErrorMessage e{id, {}};
        d.str(j, "", "message", e.message);
        if (!d.status.isOk()) return d.status;
        return ProtocolMessage{e};
    }
    if (type == "progress") {
        ProgressMessage p;
        p.id = id;
        d.str(j, "", "stage", p.stage);
        d.integer(j, "", "done", p.done);
        d.integer(j, "", "total", p.total);
        if (!d.status.isOk()) return d.status;
        return ProtocolMessage{p};
    }
    if (type == "capabilities") {
        Capabilities c;
        c.id = id;
        d.str(j, "", "runner_version", c.runnerVersion);
        d.boolean(j, "", "device_present", c.devicePresent);
        d.str(j, "", "reason", c.reason);
        if (auto* dev = d.object(j, "", "device")) decodeDevice(d, *dev, "device", c.device);
        if (auto* refs = d.array(j, "", "references"))
            for (const auto& v : *refs)
                if (v.is_string()) c.references.push_back(v.get<std::string>());
        if (!d.status.isOk()) return d.status;
        return ProtocolMessage{c};
    }
    if (type == "result") {
        RerunResult r = decodeResult(d, j);
        if (!d.status.isOk()) return d.status;
        return ProtocolMessage{std::move(r)};
    }
    if (type == "rerun") {
        RerunRequest req;
        req.id = id;
        auto p = j.find("problem");
        if (p == j.end()) return Status(ErrorCode::SchemaError, "rerun request has no 'problem'");
        auto problem = problemSpecFromJson(*p, "<request problem>");
        if (!problem) return problem.status();
        req.problem = std::move(*problem);
        auto c = j.find("candidate");
        if (c == j.end()) return Status(ErrorCode::SchemaError, "rerun request has no 'candidate'");
        auto candidate = candidateSpecFromJson(*c, "<request candidate>");
        if (!candidate) return candidate.status();
        req.candidate = std::move(*candidate);
        if (auto* o = d.object(j, "", "options")) decodeOptions(d, *o, req.options);
        if (auto* kb = d.object(j, "", "kernelbench")) {
            KernelBenchPayload payload;
            d.str(*kb, "kernelbench", "problem_file", payload.problemFile);
            d.str(*kb, "kernelbench", "problem_source", payload.problemSource);
            d.str(*kb, "kernelbench", "record_id", payload.recordId);
            req.kernelbench = std::move(payload);
        }
        if (!d.status.isOk()) return d.status;
        return ProtocolMessage{std::move(req)};
    }
    return Status(ErrorCode::SchemaError, "unknown message type '" + type + "'");
}

} // namespace kwb
