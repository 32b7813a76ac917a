#include "records/leaderboard_importer.h"

#include "base/mapped_file.h"
#include "records/json_dom.h"

namespace kwb {

using nlohmann::json;

namespace {

Provenance leaderboardProvenance(const std::string& fileName)
{
    Provenance p;
    p.source = fileName;
    p.timer = "cuda_event"; // KernelBench's evaluator, which produced the leaderboard
    return p;
}

} // namespace

RecordSet importLeaderboard(std::string_view text, const std::string& fileName)
{
    RecordSet set;
    FileReport report;
    report.file = fileName;
    report.format = "leaderboard";
    auto parsed = parseJsonDom(text, fileName);
    if (!parsed) {
        report.fatal = parsed.status();
        set.files.push_back(std::move(report));
        return set;
    }
    const json& root = *parsed;
    if (!root.is_array()) {
        report.fatal = Status(ErrorCode::SchemaError, "expected a list of kernels, found " + jsonTypeName(root), SourcePosition{fileName});
        set.files.push_back(std::move(report));
        return set;
    }
    auto bad = [&](std::size_t index, std::string reason) {
        ++report.badRecords;
        if (report.issues.size() < kMaxIssuesPerFile)
            report.issues.push_back(Status(ErrorCode::SchemaError, std::move(reason),
                SourcePosition{fileName, 0, 0, -1, "[" + std::to_string(index) + "]"}));
    };

    for (std::size_t i = 0; i < root.size(); ++i) {
        const json& e = root[i];
        if (!e.is_object()) {
            bad(i, "entry is " + jsonTypeName(e) + ", expected an object");
            continue;
        }
        auto need = [&](const char* key, bool (json::*check)() const noexcept) -> const json* {
            auto it = e.find(key);
            if (it == e.end() || !((*it).*check)()) return nullptr;
            return &*it;
        };
        const json* problemId = need("problem_id", &json::is_number_integer);
        const json* level = need("level", &json::is_number_integer);
        const json* model = need("model", &json::is_string);
        const json* speedup = need("torch_speedup", &json::is_number);
        if (!problemId || !level || !model || !speedup) {
            std::string missing;
            const std::pair<const char*, const json*> members[] = {
                {"problem_id", problemId}, {"level", level}, {"model", model}, {"torch_speedup", speedup}};
            for (const auto& [name, ptr] : members)
                if (!ptr) missing += std::string(missing.empty() ? "" : ", ") + name;
            bad(i, "missing or mistyped member(s): " + missing);
            continue;
        }
        EvalRecord r;
        r.problem.suite = "KernelBench";
        r.problem.level = level->get<std::int64_t>();
        // The leaderboard numbers problems from 0 (level 1 has ids 0..98; its id 39 samples
        // implement 40_LayerNorm.py); KernelBench's files and baseline tables count from 1.
        r.problem.id = problemId->get<std::int64_t>() + 1;
        r.extra.push_back({"problem_id", problemId->dump()});
        r.model = model->get<std::string>();
        r.run = "leaderboard";
        r.outcome = Outcome::Correct;
        r.compiled = true;
        r.speedup = speedup->get<double>();
        r.speedupBaseline = "torch_eager";
        for (auto it = e.begin(); it != e.end(); ++it) {
            const std::string& k = it.key();
            const json& v = it.value();
            if (k == "problem_id" || k == "level" || k == "model" || k == "torch_speedup") continue;
            if (k == "kernel_eval_time" && v.is_number()) {
                r.candidate.meanMs = v.get<double>();
                r.candidate.provenance = leaderboardProvenance(fileName);
            } else if (k == "baseline_torch_time" && v.is_number()) {
                Baseline b{"torch_eager", {}};
                b.stats.meanMs = v.get<double>();
                b.stats.provenance = leaderboardProvenance(fileName);
                r.baselines.push_back(std::move(b));
            } else if (k == "baseline_torch_compile_time" && v.is_number()) {
                Baseline b{"torch_compile", {}};
                b.stats.meanMs = v.get<double>();
                b.stats.provenance = leaderboardProvenance(fileName);
                r.baselines.push_back(std::move(b));
            } else if (k == "code" && v.is_string()) {
                r.source.code = v.get<std::string>();
                r.source.language = "python+cuda";
            } else if (k == "file" && v.is_string()) {
                r.id = "leaderboard/" + v.get<std::string>();
                r.extra.push_back({k, v.dump()});
            } else {
                r.extra.push_back({k, v.dump(-1, ' ', false, json::error_handler_t::replace)});
            }
        }
        if (r.id.empty()) r.id = "leaderboard/" + std::to_string(i);
        set.records.push_back(std::move(r));
    }
    report.records = set.records.size();
    set.files.push_back(std::move(report));
    return set;
}

RecordSet loadLeaderboard(const std::string& path)
{
    auto text = readFileContents(path);
    if (!text) {
        RecordSet set;
        FileReport report;
        report.file = path;
        report.format = "leaderboard";
        report.fatal = text.status();
        set.files.push_back(std::move(report));
        return set;
    }
    return importLeaderboard(*text, path);
}

} // namespace kwb
