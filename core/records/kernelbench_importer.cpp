#include "records/kernelbench_importer.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include <unordered_map>

#include "base/checked_int.h"
#include "base/mapped_file.h"
#include "records/json_dom.h"

namespace kwb {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Levels are small numbers (1-4 today); anything past this is corrupt input.
constexpr std::int64_t kMaxLevel = 1'000'000;

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// The level a path names ("runs/level2/..."): nullopt when it names none;
// `outOfRange` is set when it names one too large to be a level.
std::optional<std::int64_t> levelFromPath(const std::string& path, bool& outOfRange)
{
    static const std::regex re(R"((?:^|[^a-z])level[_\-]?([0-9]+))", std::regex::icase);
    std::smatch m;
    outOfRange = false;
    if (!std::regex_search(path, m, re)) return std::nullopt;
    auto level = parseBoundedInt(m[1].str(), 0, kMaxLevel);
    outOfRange = !level;
    return level;
}

std::optional<double> numberOf(const json& j)
{
    if (j.is_number()) return j.get<double>();
    return std::nullopt;
}

// All error text the sample carries, for classification and display.
std::string errorText(const json& metadata)
{
    static const char* kKeys[] = {"error", "compilation_error", "runtime_error", "cuda_error", "other_error",
        "correctness_issue", "error_message", "gpu_error", "timeout"};
    std::string out;
    if (!metadata.is_object()) return out;
    for (const char* k : kKeys) {
        auto it = metadata.find(k);
        if (it == metadata.end() || it->is_null()) continue;
        std::string text = it->is_string() ? it->get<std::string>() : it->dump();
        if (text.empty()) continue;
        if (!out.empty()) out += "\n";
        out += std::string(k) + ": " + text;
    }
    return out;
}

bool mentionsTimeout(const std::string& text)
{
    const std::string l = lower(text);
    return l.find("timed out") != std::string::npos || l.find("timeout") != std::string::npos;
}

Outcome classify(bool compiled, bool correct, const json& metadata)
{
    const std::string text = errorText(metadata);
    const bool compileError = metadata.is_object() && metadata.contains("compilation_error");
    if (mentionsTimeout(text)) return Outcome::Timeout;
    if (!compiled) {
        if (compileError) return Outcome::CompileError;
        // KernelBench writes crashes (CUDA faults, evaluator exceptions) as compiled=false
        // with an error in the metadata; without any error text it is a build failure.
        if (!text.empty()) return Outcome::RuntimeError;
        return Outcome::CompileError;
    }
    if (correct) return Outcome::Correct;
    if (metadata.is_object() && (metadata.contains("runtime_error") || metadata.contains("cuda_error")))
        return Outcome::RuntimeError;
    return Outcome::Incorrect;
}

// Reads KernelBench's timing statistics; a known member of the wrong type is
// an error (its name and the reason in `problem`), unknown ones are kept.
bool fillStatsFromKernelBench(const json& stats, RuntimeStats& out, RawFields& extra, std::string& problem)
{
    for (auto it = stats.begin(); it != stats.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        std::optional<double>* number = k == "mean" ? &out.meanMs
            : k == "std"                            ? &out.stdMs
            : k == "min"                            ? &out.minMs
            : k == "max"                            ? &out.maxMs
            : k == "median"                         ? &out.medianMs
                                                    : nullptr;
        if (number) {
            if (v.is_null()) continue;
            if (!v.is_number()) {
                problem = k + ": \"" + k + "\" is " + jsonTypeName(v) + ", expected a number";
                return false;
            }
            *number = v.get<double>();
        } else if (k == "num_trials") {
            if (v.is_null()) continue;
            if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX)) {
                problem = k + ": \"num_trials\" is " + jsonTypeName(v) + ", expected an integer";
                return false;
            }
            out.provenance.trials = v.get<std::int64_t>();
        } else if (k == "hardware") {
            if (v.is_null()) continue;
            if (!v.is_string()) {
                problem = k + ": \"hardware\" is " + jsonTypeName(v) + ", expected a string";
                return false;
            }
            out.provenance.gpu = v.get<std::string>();
        } else {
            extra.push_back({k, v.dump()});
        }
    }
    // KernelBench times with CUDA events on the default stream.
    if (!out.empty()) out.provenance.timer = "cuda_event";
    return true;
}

FileReport fatalReport(const std::string& file, const char* format, Status s)
{
    FileReport r;
    r.file = file;
    r.format = format;
    r.fatal = std::move(s);
    return r;
}

} // namespace

std::optional<std::pair<std::int64_t, std::string>> parseProblemFileName(std::string_view fileName)
{
    std::size_t i = 0;
    while (i < fileName.size() && std::isdigit(static_cast<unsigned char>(fileName[i]))) ++i;
    if (i == 0 || i > 9) return std::nullopt;
    const std::int64_t id = parseInt64(fileName.substr(0, i)).value_or(0); // at most 9 digits: always fits
    std::string_view name = fileName;
    if (name.size() > 3 && name.substr(name.size() - 3) == ".py") name.remove_suffix(3);
    return std::make_pair(id, std::string(name));
}

RecordSet importKernelBenchEval(std::string_view text, const std::string& fileName, const KernelBenchEvalOptions& options)
{
    RecordSet set;
    auto parsed = parseJsonDom(text, fileName);
    if (!parsed) {
        set.files.push_back(fatalReport(fileName, "kernelbench-eval", parsed.status()));
        return set;
    }
    const json& root = *parsed;
    FileReport report;
    report.file = fileName;
    report.format = "kernelbench-eval";
    if (!root.is_object()) {
        report.fatal = Status(ErrorCode::SchemaError,
            "expected an object mapping problem ids to results, found " + jsonTypeName(root), SourcePosition{fileName});
        set.files.push_back(std::move(report));
        return set;
    }

    const fs::path p(fileName);
    const std::string run = !options.run.empty() ? options.run : p.parent_path().filename().string();
    const std::string model = !options.model.empty() ? options.model : run;
    bool levelOutOfRange = false;
    const auto level = options.level ? options.level : levelFromPath(fileName, levelOutOfRange);
    if (levelOutOfRange)
        report.issues.push_back(Status(ErrorCode::SchemaError,
            "the level number in the file's path is out of range (0.." + std::to_string(kMaxLevel) + "): level unknown",
            SourcePosition{fileName}));

    // Positions of the problem keys, for messages; nlohmann keeps only the
    // last of duplicate keys, so duplicates are found here.
    std::unordered_map<std::string, std::size_t> keyOffset;
    for (const auto& m : topLevelOffsets(text)) {
        auto [at, inserted] = keyOffset.emplace(m.key, m.offset);
        if (!inserted) {
            ++report.badRecords;
            if (report.issues.size() < kMaxIssuesPerFile)
                report.issues.push_back(Status(ErrorCode::SchemaError,
                    "duplicate problem key \"" + m.key + "\": only its last value is read",
                    jsonPosition(text, m.offset, fileName, m.key)));
            at->second = m.offset; // nlohmann keeps the last one
        }
    }
    auto positionOf = [&](const std::string& key, const std::string& path) {
        auto at = keyOffset.find(key);
        if (at == keyOffset.end()) return SourcePosition{fileName, 0, 0, -1, path};
        return jsonPosition(text, at->second, fileName, path);
    };
    std::string currentKey;
    auto bad = [&](const std::string& path, std::string reason) {
        ++report.badRecords;
        if (report.issues.size() < kMaxIssuesPerFile)
            report.issues.push_back(Status(ErrorCode::SchemaError, std::move(reason), positionOf(currentKey, path)));
    };

    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string& key = it.key();
        currentKey = key;
        const auto parsedId = parseInt64(key);
        if (!parsedId) {
            bad(key, "key \"" + key + "\" is not a problem id (an integer within int64)");
            continue;
        }
        const std::int64_t problemId = *parsedId;
        // v0: one object per problem; later: a list of samples.
        std::vector<const json*> samples;
        if (it->is_object()) samples.push_back(&*it);
        else if (it->is_array()) {
            for (const auto& s : *it) samples.push_back(&s);
        } else {
            bad(key, "expected an object or a list of samples, found " + jsonTypeName(*it));
            continue;
        }
        std::size_t index = 0;
        for (const json* sp : samples) {
            const std::string path = key + (it->is_array() ? "[" + std::to_string(index) + "]" : "");
            ++index;
            const json& s = *sp;
            if (!s.is_object()) {
                bad(path, "sample is " + jsonTypeName(s) + ", expected an object");
                continue;
            }
            auto compiledIt = s.find("compiled");
            auto correctIt = s.find("correctness");
            if (compiledIt == s.end() || !compiledIt->is_boolean()) {
                bad(path, "missing or non-boolean \"compiled\"");
                continue;
            }
            if (correctIt == s.end() || !correctIt->is_boolean()) {
                bad(path, "missing or non-boolean \"correctness\"");
                continue;
            }
            EvalRecord r;
            r.problem.suite = "KernelBench";
            r.problem.level = level;
            r.problem.id = problemId;
            r.model = model;
            r.run = run;
            r.compiled = compiledIt->get<bool>();
            const json metadata = s.value("metadata", json::object());
            r.outcome = classify(r.compiled, correctIt->get<bool>(), metadata);
            r.error = errorText(metadata);

            bool badField = false;
            for (auto f = s.begin(); f != s.end(); ++f) {
                const std::string& k = f.key();
                const json& v = f.value();
                if (k == "compiled" || k == "correctness") continue;
                if (k == "sample_id") {
                    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX)) {
                        bad(path + ".sample_id", "\"sample_id\" is " + jsonTypeName(v) + ", expected an integer");
                        badField = true;
                        break;
                    }
                    r.sample = v.get<std::int64_t>();
                } else if (k == "runtime") {
                    if (!v.is_number() && !v.is_null()) {
                        bad(path + ".runtime", "\"runtime\" is " + jsonTypeName(v) + ", expected a number");
                        badField = true;
                        break;
                    }
                    // runtime <= 0 means KernelBench did not time the sample.
                    if (auto d = numberOf(v); d && *d > 0 && !r.candidate.meanMs) r.candidate.meanMs = d;
                } else if (k == "runtime_stats") {
                    if (v.is_null()) continue;
                    if (!v.is_object()) {
                        bad(path + ".runtime_stats", "\"runtime_stats\" is " + jsonTypeName(v) + ", expected an object");
                        badField = true;
                        break;
                    }
                    RuntimeStats stats;
                    std::string problem;
                    if (!fillStatsFromKernelBench(v, stats, r.candidate.extra, problem)) {
                        bad(path + ".runtime_stats." + problem.substr(0, problem.find(':')), problem.substr(problem.find(':') + 2));
                        badField = true;
                        break;
                    }
                    if (stats.meanMs && *stats.meanMs <= 0) stats.meanMs.reset();
                    const auto keepMean = r.candidate.meanMs;
                    RawFields keepExtra = std::move(r.candidate.extra);
                    r.candidate = std::move(stats);
                    r.candidate.extra = std::move(keepExtra);
                    if (!r.candidate.meanMs) r.candidate.meanMs = keepMean;
                } else {
                    r.extra.push_back({k == "metadata" ? "kernelbench_metadata" : k, v.dump()});
                }
            }
            if (badField) continue;
            if (!r.candidate.empty()) r.candidate.provenance.source = fileName;
            if (!r.candidate.meanMs && r.candidate.provenance.timer == "cuda_event" && !r.candidate.minMs)
                r.candidate.provenance.timer.clear();
            r.id = run + "/L" + (level ? std::to_string(*level) : std::string("?")) + "/" + key + "/"
                + (r.sample ? std::to_string(*r.sample) : std::to_string(index - 1));
            set.records.push_back(std::move(r));
        }
    }
    report.records = set.records.size();
    set.files.push_back(std::move(report));
    return set;
}

RecordSet loadKernelBenchEval(const std::string& path, const KernelBenchEvalOptions& options)
{
    auto text = readFileContents(path);
    if (!text) {
        RecordSet set;
        set.files.push_back(fatalReport(path, "kernelbench-eval", text.status()));
        return set;
    }
    return importKernelBenchEval(*text, path, options);
}

const BaselineEntry* BaselineTable::find(std::int64_t level, std::int64_t problemId) const
{
    auto it = entries.find(BaselineKey{level, problemId});
    return it == entries.end() ? nullptr : &it->second;
}

Result<BaselineTable> parseKernelBenchBaseline(std::string_view text, const std::string& fileName)
{
    KWB_ASSIGN_OR_RETURN(json root, parseJsonDom(text, fileName));
    if (!root.is_object())
        return Status(ErrorCode::SchemaError, "expected an object keyed by level, found " + jsonTypeName(root), SourcePosition{fileName});

    BaselineTable table;
    table.file = fileName;
    const fs::path p(fileName);
    table.hardware = p.parent_path().filename().string();
    table.config = p.stem().string();
    if (table.config.size() > 5 && table.config.substr(table.config.size() - 5) == ".json")
        table.config.resize(table.config.size() - 5);
    {
        std::string c = table.config;
        const std::string prefix = "baseline_time_";
        if (c.rfind(prefix, 0) == 0) c = c.substr(prefix.size());
        table.name = (c == "torch") ? "torch_eager" : c;
    }

    std::unordered_map<std::string, std::size_t> keyOffset;
    for (const auto& m : topLevelOffsets(text)) {
        if (!keyOffset.emplace(m.key, m.offset).second) {
            ++table.badEntries;
            table.issues.push_back(Status(ErrorCode::SchemaError, "duplicate level key \"" + m.key + "\": only its last value is read",
                jsonPosition(text, m.offset, fileName, m.key)));
        }
    }
    auto positionOf = [&](const std::string& key, const std::string& path) {
        auto at = keyOffset.find(key);
        if (at == keyOffset.end()) return SourcePosition{fileName, 0, 0, -1, path};
        return jsonPosition(text, at->second, fileName, path);
    };
    std::size_t levels = 0;
    for (auto lv = root.begin(); lv != root.end(); ++lv) {
        const std::string& levelKey = lv.key();
        std::int64_t level = 0;
        if (levelKey.rfind("level", 0) != 0 || levelKey.size() == 5
            || !std::all_of(levelKey.begin() + 5, levelKey.end(), [](unsigned char c) { return std::isdigit(c); })) {
            ++table.badEntries;
            table.issues.push_back(Status(ErrorCode::SchemaError, "top-level key \"" + levelKey + "\" is not \"levelN\"",
                positionOf(levelKey, levelKey)));
            continue;
        }
        if (auto parsed = parseBoundedInt(std::string_view(levelKey).substr(5), 0, kMaxLevel)) {
            level = *parsed;
        } else {
            ++table.badEntries;
            table.issues.push_back(Status(ErrorCode::SchemaError,
                "level number in \"" + levelKey + "\" is out of range (0.." + std::to_string(kMaxLevel) + ")",
                positionOf(levelKey, levelKey)));
            continue;
        }
        if (!lv->is_object()) {
            ++table.badEntries;
            table.issues.push_back(Status(ErrorCode::SchemaError, "expected an object of problems, found " + jsonTypeName(*lv),
                positionOf(levelKey, levelKey)));
            continue;
        }
        ++levels;
        for (auto pr = lv->begin(); pr != lv->end(); ++pr) {
            const std::string path = levelKey + "/" + pr.key();
            auto parsedName = parseProblemFileName(pr.key());
            auto fail = [&](std::string reason) {
                ++table.badEntries;
                if (table.issues.size() < kMaxIssuesPerFile)
                    table.issues.push_back(Status(ErrorCode::SchemaError, std::move(reason), positionOf(levelKey, path)));
            };
            if (!parsedName) {
                fail("problem key does not start with a problem id");
                continue;
            }
            if (!pr->is_object()) {
                fail("expected timing statistics, found " + jsonTypeName(*pr));
                continue;
            }
            auto mean = pr->find("mean");
            if (mean == pr->end() || !mean->is_number()) {
                fail("missing or non-numeric \"mean\"");
                continue;
            }
            BaselineEntry entry;
            entry.problemName = parsedName->second;
            std::string problem;
            if (!fillStatsFromKernelBench(*pr, entry.stats, entry.stats.extra, problem)) {
                fail(problem.substr(problem.find(':') + 2));
                continue;
            }
            entry.stats.provenance.source = fileName;
            entry.stats.provenance.config = table.hardware + "/" + table.config;
            if (entry.stats.provenance.gpu.empty()) entry.stats.provenance.gpu = table.hardware;
            table.entries[BaselineKey{level, parsedName->first}] = std::move(entry);
        }
    }
    if (levels == 0)
        return Status(ErrorCode::SchemaError, "no \"levelN\" object found: not a KernelBench baseline timing file",
            SourcePosition{fileName});
    return table;
}

Result<BaselineTable> loadKernelBenchBaseline(const std::string& path)
{
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(path));
    return parseKernelBenchBaseline(text, path);
}

std::size_t joinBaseline(std::span<EvalRecord> records, const BaselineTable& table)
{
    std::size_t joined = 0;
    for (auto& r : records) {
        if (!r.problem.level || !r.problem.id) continue;
        const BaselineEntry* e = table.find(*r.problem.level, *r.problem.id);
        if (!e) continue;
        if (r.problem.name.empty()) r.problem.name = e->problemName;
        Baseline b{table.name, e->stats};
        auto existing = std::find_if(r.baselines.begin(), r.baselines.end(), [&](const Baseline& x) { return x.name == b.name; });
        if (existing != r.baselines.end()) *existing = b;
        else r.baselines.push_back(b);
        if (!r.speedup && r.candidate.meanMs && *r.candidate.meanMs > 0 && e->stats.meanMs) {
            // KernelBench's own scripts divide mean baseline time by mean runtime.
            r.speedup = *e->stats.meanMs / *r.candidate.meanMs;
            r.speedupBaseline = b.name;
        }
        ++joined;
    }
    return joined;
}

bool KernelBenchSampleMetadata::empty() const
{
    return !trialsPassed && !trialsTotal && maxDifference.empty() && avgDifference.empty() && correctnessIssue.empty()
        && compilationError.empty() && runtimeError.empty() && otherError.empty() && hardware.empty() && other.empty();
}

namespace {

// A member as display text: strings without quotes, anything else as JSON.
std::string textOf(const json& v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

// KernelBench writes differences as formatted strings ("0.012345"), one per failed trial;
// a lone number or string is one trial.
std::vector<double> differences(const json& v)
{
    std::vector<double> out;
    auto one = [&out](const json& x) {
        if (x.is_number()) out.push_back(x.get<double>());
        else if (x.is_string()) {
            const std::string t = x.get<std::string>();
            char* end = nullptr;
            const double d = std::strtod(t.c_str(), &end);
            if (end != t.c_str()) out.push_back(d);
        }
    };
    if (v.is_array())
        for (const auto& x : v) one(x);
    else
        one(v);
    return out;
}

} // namespace

std::optional<KernelBenchSampleMetadata> kernelBenchMetadata(const EvalRecord& record)
{
    const RawField* raw = findRaw(record.extra, "kernelbench_metadata");
    if (!raw) return std::nullopt;
    auto parsed = parseJsonDom(raw->json, "kernelbench_metadata");
    if (!parsed || !parsed->is_object()) return std::nullopt;
    KernelBenchSampleMetadata m;
    for (auto it = parsed->begin(); it != parsed->end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        if (v.is_null()) continue;
        if (k == "correctness_trials") {
            static const std::regex re(R"(\(?\s*([0-9]+)\s*/\s*([0-9]+)\s*\)?)");
            const std::string t = textOf(v);
            std::smatch match;
            if (std::regex_search(t, match, re)) {
                m.trialsPassed = parseBoundedInt(match[1].str(), 0, INT64_MAX);
                m.trialsTotal = parseBoundedInt(match[2].str(), 0, INT64_MAX);
            } else {
                m.other.emplace_back(k, t);
            }
        } else if (k == "max_difference") {
            m.maxDifference = differences(v);
        } else if (k == "avg_difference") {
            m.avgDifference = differences(v);
        } else if (k == "correctness_issue") {
            m.correctnessIssue = textOf(v);
        } else if (k == "compilation_error") {
            m.compilationError = textOf(v);
        } else if (k == "runtime_error") {
            m.runtimeError = textOf(v);
        } else if (k == "other_error") {
            m.otherError = textOf(v);
        } else if (k == "hardware") {
            m.hardware = textOf(v);
        } else {
            m.other.emplace_back(k, textOf(v));
        }
    }
    return m;
}

} // namespace kwb
