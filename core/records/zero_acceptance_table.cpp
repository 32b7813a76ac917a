#include "records/zero_acceptance_table.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "base/text_table.h"
#include "records/json_dom.h"

namespace kwb {

namespace {

using json = nlohmann::json;

Status memberError(const std::string& file, std::int64_t line, const std::string& member, const std::string& why)
{
    SourcePosition where;
    where.file = file;
    where.line = line;
    where.path = member;
    return Status(ErrorCode::SchemaError, why, where);
}

// Reads the per-tensor members shared by a row and each of its `outputs`.
Status readStats(const json& o, ZeroOutputStats& s, const std::string& file, std::int64_t line, const std::string& at)
{
    auto num = [&](const char* key, double& out, bool required) -> Status {
        auto it = o.find(key);
        if (it == o.end()) {
            if (required) return memberError(file, line, at + key, "missing");
            out = std::nan("");
            return Status::ok();
        }
        if (it->is_null()) { // a value that was not finite (this writer's form)
            out = std::nan("");
            return Status::ok();
        }
        if (it->is_string()) { // Python's json.dumps form of a non-finite value, quoted by quoteNonFinite
            const std::string v = it->get<std::string>();
            if (v == "Infinity" || v == "-Infinity" || v == "NaN") {
                out = v == "NaN" ? std::nan("") : v[0] == '-' ? -HUGE_VAL : HUGE_VAL;
                return Status::ok();
            }
        }
        if (!it->is_number()) return memberError(file, line, at + key, "expected a number, got " + jsonTypeName(*it));
        out = it->get<double>();
        return Status::ok();
    };
    KWB_RETURN_IF_ERROR(num("max_abs", s.maxAbs, true));
    KWB_RETURN_IF_ERROR(num("rms", s.rms, true));
    KWB_RETURN_IF_ERROR(num("mean", s.mean, false));
    if (auto it = o.find("numel"); it != o.end()) {
        if (!it->is_number_integer()) return memberError(file, line, at + "numel", "expected an integer");
        s.numel = it->get<std::int64_t>();
    }
    if (auto it = o.find("nonfinite"); it != o.end() && !it->is_null()) {
        if (!it->is_number_integer()) return memberError(file, line, at + "nonfinite", "expected an integer");
        s.nonfinite = it->get<std::int64_t>();
    }
    if (auto it = o.find("dtype"); it != o.end() && it->is_string()) s.dtype = it->get<std::string>();
    if (auto it = o.find("shape"); it != o.end() && it->is_array()) {
        for (const auto& d : *it)
            if (d.is_number_integer()) s.shape.push_back(d.get<std::int64_t>());
    }
    for (std::size_t t = 0; t < kZeroToleranceCount; ++t) {
        const std::string tk = zeroToleranceKey(kZeroTolerances[t]);
        const std::string zk = "zeros_pass_" + tk;
        const std::string mk = "mean_pass_" + tk;
        auto z = o.find(zk);
        if (z == o.end() || !z->is_boolean()) return memberError(file, line, at + zk, "expected true or false");
        s.zerosPass[t] = z->get<bool>();
        auto m = o.find(mk);
        if (m == o.end()) return memberError(file, line, at + mk, "missing");
        if (m->is_null()) s.meanPass[t] = std::nullopt;
        else if (m->is_boolean()) s.meanPass[t] = m->get<bool>();
        else return memberError(file, line, at + mk, "expected true, false or null");
    }
    return Status::ok();
}

// Python's json module writes non-finite floats as bare Infinity, -Infinity and
// NaN (the committed table has one: an RMS that overflowed float32); quote them
// outside strings so that a strict parser reads the line.
std::string quoteNonFinite(std::string_view line)
{
    std::string out;
    out.reserve(line.size() + 8);
    bool inString = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < line.size()) out += line[++i];
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        bool replaced = false;
        for (std::string_view token : {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
            if (line.substr(i, token.size()) == token) {
                out += '"';
                out += token;
                out += '"';
                i += token.size() - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += c;
    }
    return out;
}

std::optional<double> optNumber(const json& o, const char* key)
{
    auto it = o.find(key);
    if (it == o.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

nlohmann::ordered_json number(double v)
{
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

void writeStats(nlohmann::ordered_json& j, const ZeroOutputStats& s)
{
    j["shape"] = s.shape;
    j["dtype"] = s.dtype;
    j["numel"] = s.numel;
    j["max_abs"] = number(s.maxAbs);
    j["rms"] = number(s.rms);
    j["mean"] = number(s.mean);
    j["nonfinite"] = s.nonfinite;
    for (std::size_t t = 0; t < kZeroToleranceCount; ++t) {
        const std::string tk = zeroToleranceKey(kZeroTolerances[t]);
        j["zeros_pass_" + tk] = s.zerosPass[t];
        j["mean_pass_" + tk] = s.meanPass[t] ? nlohmann::ordered_json(*s.meanPass[t]) : nlohmann::ordered_json(nullptr);
    }
}

std::string yes(std::optional<bool> v)
{
    return !v ? "-" : *v ? "yes" : "no";
}

std::string general(double v)
{
    if (!std::isfinite(v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

} // namespace

Result<std::vector<ZeroAcceptanceRow>> parseZeroAcceptanceRows(std::string_view text, const std::string& fileName)
{
    std::vector<ZeroAcceptanceRow> rows;
    std::int64_t lineNo = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const bool bare = line.find("Infinity") != std::string_view::npos || line.find("NaN") != std::string_view::npos;
        auto parsed = parseJsonDom(bare ? std::string_view(quoteNonFinite(line)) : line, fileName);
        if (!parsed.isOk()) {
            Status s = parsed.status();
            s.where().line = lineNo;
            return s;
        }
        const json& o = *parsed;
        if (!o.is_object()) return memberError(fileName, lineNo, "", "a row must be a JSON object, got " + jsonTypeName(o));
        ZeroAcceptanceRow r;
        auto str = [&](const char* key, std::string& out, bool required) -> Status {
            auto it = o.find(key);
            if (it == o.end() || it->is_null()) return required ? memberError(fileName, lineNo, key, "missing") : Status::ok();
            if (!it->is_string()) return memberError(fileName, lineNo, key, "expected a string, got " + jsonTypeName(*it));
            out = it->get<std::string>();
            return Status::ok();
        };
        KWB_RETURN_IF_ERROR(str("version", r.version, true));
        KWB_RETURN_IF_ERROR(str("problem", r.problem, true));
        KWB_RETURN_IF_ERROR(str("status", r.status, true));
        KWB_RETURN_IF_ERROR(str("reason", r.reason, false));
        auto lv = o.find("level");
        if (lv == o.end() || !lv->is_number_integer()) return memberError(fileName, lineNo, "level", "expected an integer");
        r.level = lv->get<int>();
        if (r.status == "ok") {
            if (auto outs = o.find("outputs"); outs != o.end() && outs->is_array()) {
                for (std::size_t i = 0; i < outs->size(); ++i) {
                    ZeroOutputStats s;
                    KWB_RETURN_IF_ERROR(readStats((*outs)[i], s, fileName, lineNo, "outputs[" + std::to_string(i) + "]."));
                    r.outputs.push_back(std::move(s));
                }
                r.combined = combineZeroOutputs(r.outputs);
                // The row's own verdicts are what the writer decided; they must agree with its outputs'.
                ZeroOutputStats own;
                KWB_RETURN_IF_ERROR(readStats(o, own, fileName, lineNo, ""));
                for (std::size_t t = 0; t < kZeroToleranceCount; ++t)
                    if (own.zerosPass[t] != r.combined.zerosPass[t])
                        return memberError(fileName, lineNo, "zeros_pass_" + zeroToleranceKey(kZeroTolerances[t]),
                            "disagrees with the row's outputs");
            } else {
                ZeroOutputStats s;
                KWB_RETURN_IF_ERROR(readStats(o, s, fileName, lineNo, ""));
                r.outputs.push_back(s);
                r.combined = s;
            }
        }
        r.setupS = optNumber(o, "setup_s");
        r.forwardMs = optNumber(o, "forward_ms");
        r.wallS = optNumber(o, "wall_s");
        if (auto b = optNumber(o, "input_bytes")) r.inputBytes = static_cast<std::int64_t>(*b);
        rows.push_back(std::move(r));
    }
    return rows;
}

std::string zeroOutputStatsJson(const ZeroOutputStats& stats)
{
    nlohmann::ordered_json j;
    writeStats(j, stats);
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<ZeroOutputStats> parseZeroOutputStats(std::string_view text, const std::string& where)
{
    KWB_ASSIGN_OR_RETURN(json o, parseJsonDom(text, where));
    if (!o.is_object()) return memberError(where, 0, "", "expected a JSON object, got " + jsonTypeName(o));
    ZeroOutputStats s;
    KWB_RETURN_IF_ERROR(readStats(o, s, where, 0, ""));
    return s;
}

std::string zeroAcceptanceMetaPath(const std::string& tablePath)
{
    std::filesystem::path p(tablePath);
    p.replace_extension(".meta.json");
    return p.string();
}

Result<ZeroAcceptanceTable> readZeroAcceptanceTable(const std::string& path)
{
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(path));
    ZeroAcceptanceTable table;
    KWB_ASSIGN_OR_RETURN(table.rows, parseZeroAcceptanceRows(text, path));
    const std::string metaPath = zeroAcceptanceMetaPath(path);
    std::error_code ec;
    if (std::filesystem::is_regular_file(metaPath, ec)) {
        KWB_ASSIGN_OR_RETURN(std::string metaText, readFileContents(metaPath));
        KWB_ASSIGN_OR_RETURN(json m, parseJsonDom(metaText, metaPath));
        if (!m.is_object()) return Status(ErrorCode::SchemaError, "expected a JSON object", SourcePosition{metaPath});
        auto s = [&m](const char* key) { return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : std::string(); };
        table.meta.device = s("device");
        table.meta.torch = s("torch");
        table.meta.cuda = s("cuda");
        table.meta.dateUtc = s("date_utc");
        if (m.contains("seed") && m["seed"].is_number_integer()) table.meta.seed = m["seed"].get<long long>();
        table.haveMeta = true;
    }
    return table;
}

std::string zeroAcceptanceRowJson(const ZeroAcceptanceRow& r)
{
    nlohmann::ordered_json j;
    j["version"] = r.version;
    j["level"] = r.level;
    j["problem"] = r.problem;
    if (r.status == "ok") {
        if (r.outputs.size() > 1) {
            j["outputs"] = nlohmann::ordered_json::array();
            for (const auto& o : r.outputs) {
                nlohmann::ordered_json oj;
                writeStats(oj, o);
                j["outputs"].push_back(oj);
            }
        }
        writeStats(j, r.combined);
    }
    j["status"] = r.status;
    if (!r.reason.empty()) j["reason"] = r.reason;
    if (r.setupS) j["setup_s"] = *r.setupS;
    if (r.forwardMs) j["forward_ms"] = *r.forwardMs;
    if (r.inputBytes) j["input_bytes"] = *r.inputBytes;
    if (r.wallS) j["wall_s"] = *r.wallS;
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string zeroAcceptanceMetaJson(const ZeroAcceptanceMeta& m)
{
    nlohmann::ordered_json j;
    j["seed"] = m.seed;
    j["date_utc"] = m.dateUtc;
    j["device"] = m.device;
    j["torch"] = m.torch;
    j["cuda"] = m.cuda;
    return j.dump(1);
}

std::string zeroAcceptanceSummaryText(const std::vector<ZeroAcceptanceRow>& rows)
{
    using A = TextTable::Align;
    TextTable t({"version", "level", "problems", "ran", "zeros 1e-2", "zeros 1e-4", "mean 1e-2", "mean 1e-4", "skipped"},
        {A::Left, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right});
    const auto groups = summarizeZeroAcceptance(rows);
    std::string names;
    for (const auto& g : groups) {
        t.addRow({g.version, std::to_string(g.level), std::to_string(g.problems), std::to_string(g.ran),
            std::to_string(g.zerosPass[0]), std::to_string(g.zerosPass[1]), std::to_string(g.meanPass[0]),
            std::to_string(g.meanPass[1]), std::to_string(g.skipped)});
        std::string list;
        for (const auto& p : g.zerosPassProblems[0]) list += (list.empty() ? "" : ", ") + p;
        names += g.version + " level " + std::to_string(g.level) + ": " + std::to_string(g.zerosPass[0]) + " of " +
                 std::to_string(g.ran) + " accept zeros at 1e-2" + (list.empty() ? "" : " (" + list + ")") + "\n";
    }
    return t.toText() + "\n" + names;
}

std::string zeroAcceptanceRowsText(const std::vector<ZeroAcceptanceRow>& rows, int level)
{
    using A = TextTable::Align;
    TextTable t({"version", "level", "problem", "max abs", "RMS", "zeros 1e-2", "zeros 1e-4", "mean 1e-2", "mean 1e-4",
                    "note"},
        {A::Left, A::Right, A::Left, A::Right, A::Right, A::Left, A::Left, A::Left, A::Left, A::Left});
    for (const auto& r : rows) {
        if (level != 0 && r.level != level) continue;
        if (r.status != "ok") {
            t.addRow({r.version, std::to_string(r.level), r.problem, "", "", "", "", "", "", r.status + ": " + r.reason});
            continue;
        }
        const auto& c = r.combined;
        t.addRow({r.version, std::to_string(r.level), r.problem, general(c.maxAbs), general(c.rms), yes(c.zerosPass[0]),
            yes(c.zerosPass[1]), yes(c.meanPass[0]), yes(c.meanPass[1]),
            c.nonfinite ? std::to_string(c.nonfinite) + " non-finite" : std::string()});
    }
    return t.toText();
}

} // namespace kwb
