#include "records/kernelbench_importer.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

#include "base/mapped_file.h"
#include "records/json_dom.h"

namespace kwb {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::optional<std::int64_t> levelFromPath(const std::string& path)
{
    static const std::regex re(R"((?:^|[^a-z])level[_\-]?([0-9]+))", std::regex::icase);
    std::smatch m;
    if (std::regex_search(path, m, re)) return std::stoll(m[1].str());
    return std::nullopt;
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

void fillStatsFromKernelBench(const json& stats, RuntimeStats& out, RawFields& extra)
{
    for (auto it = stats.begin(); it != stats.end(); ++it) {
        const std::string& k = it.key();
        const json& v = it.value();
        if (k == "mean" && v.is_number()) out.meanMs = v.get<double>();
        else if (k == "std" && v.is_number()) out.stdMs = v.get<double>();
        else if (k == "min" && v.is_number()) out.minMs = v.get<double>();
        else if (k == "max" && v.is_number()) out.maxMs = v.get<double>();
        else if (k == "median" && v.is_number()) out.medianMs = v.get<double>();
        else if (k == "num_trials" && v.is_number_integer()) out.provenance.trials = v.get<std::int64_t>();
        else if (k == "hardware" && v.is_string()) out.provenance.gpu = v.get<std::string>();
        else extra.push_back({k, v.dump()});
    }
    // KernelBench times with CUDA events on the default stream.
    if (!out.empty()) out.provenance.timer = "cuda_event";
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
    const std::int64_t id = std::stoll(std::string(fileName.substr(0, i)));
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
    const auto level = options.level ? options.level : levelFromPath(fileName);

    auto bad = [&](const std::string& path, std::string reason) {
        ++report.badRecords;
        if (report.issues.size() < kMaxIssuesPerFile)
            report.issues.push_back(Status(ErrorCode::SchemaError, std::move(reason), SourcePosition{fileName, 0, 0, -1, path}));
    };

    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string& key = it.key();
        std::int64_t problemId = 0;
        try {
            std::size_t used = 0;
            problemId = std::stoll(key, &used);
            if (used != key.size()) throw std::invalid_argument(key);
        } catch (const std::exception&) {
            bad(key, "key \"" + key + "\" is not a problem id");
            continue;
        }
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
                    if (!v.is_number_integer()) {
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
                } else if (k == "runtime_stats" && v.is_object()) {
                    RuntimeStats stats;
                    fillStatsFromKernelBench(v, stats, r.candidate.extra);
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

    std::size_t levels = 0;
    for (auto lv = root.begin(); lv != root.end(); ++lv) {
        const std::string& levelKey = lv.key();
        std::int64_t level = 0;
        if (levelKey.rfind("level", 0) != 0 || levelKey.size() == 5
            || !std::all_of(levelKey.begin() + 5, levelKey.end(), [](unsigned char c) { return std::isdigit(c); })) {
            ++table.badEntries;
            table.issues.push_back(Status(ErrorCode::SchemaError, "top-level key \"" + levelKey + "\" is not \"levelN\"",
                SourcePosition{fileName, 0, 0, -1, levelKey}));
            continue;
        }
        level = std::stoll(levelKey.substr(5));
        if (!lv->is_object()) {
            ++table.badEntries;
            table.issues.push_back(Status(ErrorCode::SchemaError, "expected an object of problems, found " + jsonTypeName(*lv),
                SourcePosition{fileName, 0, 0, -1, levelKey}));
            continue;
        }
        ++levels;
        for (auto pr = lv->begin(); pr != lv->end(); ++pr) {
            const std::string path = levelKey + "/" + pr.key();
            auto parsedName = parseProblemFileName(pr.key());
            auto fail = [&](std::string reason) {
                ++table.badEntries;
                if (table.issues.size() < kMaxIssuesPerFile)
                    table.issues.push_back(Status(ErrorCode::SchemaError, std::move(reason), SourcePosition{fileName, 0, 0, -1, path}));
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
            fillStatsFromKernelBench(*pr, entry.stats, entry.stats.extra);
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

} // namespace kwb
