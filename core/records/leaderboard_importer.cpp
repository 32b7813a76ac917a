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
    const std::vector<JsonMemberOffset> offsets = topLevelOffsets(text);
    auto bad = [&](std::size_t index, std::string reason, const std::string& member = {}) {
        ++report.badRecords;
        if (report.issues.size() >= kMaxIssuesPerFile) return;
        std::string path = "[" + std::to_string(index) + "]" + (member.empty() ? "" : "." + member);
        SourcePosition where = index < offsets.size() ? jsonPosition(text, offsets[index].offset, fileName, path)
                                                      : SourcePosition{fileName, 0, 0, -1, path};
        report.issues.push_back(Status(ErrorCode::SchemaError, std::move(reason), std::move(where)));
    };
    // An integer member as int64 within [0, max]; nullopt when missing, mistyped or out of range.
    auto intIn = [](const json* v, std::int64_t max) -> std::optional<std::int64_t> {
        if (!v) return std::nullopt;
        if (v->is_number_unsigned()) {
            const auto u = v->get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(max)) return std::nullopt;
            return static_cast<std::int64_t>(u);
        }
        const auto i = v->get<std::int64_t>();
        if (i < 0 || i > max) return std::nullopt;
        return i;
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
        // Problem ids become id + 1 below: both must stay far from int64's edge.
        const auto id = intIn(problemId, 1'000'000'000);
        const auto lvl = intIn(level, 1'000'000);
        if (!id || !lvl) {
            bad(i, std::string(!id ? "\"problem_id\"" : "\"level\"") + " is out of range: " + (!id ? problemId : level)->dump(),
                !id ? "problem_id" : "level");
            continue;
        }
        // Known members of the wrong type would otherwise vanish.
        std::string wrong;
        for (const auto& [k, isOk] : {std::pair<const char*, bool (json::*)() const noexcept>{"kernel_eval_time", &json::is_number},
                 {"baseline_torch_time", &json::is_number}, {"baseline_torch_compile_time", &json::is_number},
                 {"code", &json::is_string}, {"file", &json::is_string}}) {
            auto it = e.find(k);
            if (it != e.end() && !it->is_null() && !((*it).*isOk)()) {
                wrong = k;
                bad(i, std::string("\"") + k + "\" is " + jsonTypeName(*it) + ", expected " + (isOk == &json::is_string ? "a string" : "a number"), k);
                break;
            }
        }
        if (!wrong.empty()) continue;
        EvalRecord r;
        r.problem.suite = "KernelBench";
        r.problem.level = *lvl;
        // The leaderboard numbers problems from 0 (level 1 has ids 0..98; its id 39 samples
        // implement 40_LayerNorm.py); KernelBench's files and baseline tables count from 1.
        r.problem.id = *id + 1;
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
