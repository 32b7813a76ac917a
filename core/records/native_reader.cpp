#include "records/native_reader.h"

#include <cstring>
#include <simdjson.h>

#include "base/mapped_file.h"

namespace kwb {

namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

// The member being read when an error happens, for the message. Holds views
// into the parser's buffers; the text is only built when an error is reported.
struct ParseContext {
    std::string_view prefix;
    std::string_view key;
    long index = -1;
    void at(std::string_view p, std::string_view k, long i = -1)
    {
        prefix = p;
        key = k;
        index = i;
    }
    std::string text() const
    {
        std::string out(prefix);
        if (index >= 0) {
            out += "[" + std::to_string(index) + "]";
            if (!key.empty()) out += ".";
        }
        out += key;
        return out;
    }
};

#define KWB_SJ(expr)                                  \
    do {                                              \
        error_code kwb_err_ = (expr);                 \
        if (kwb_err_ != simdjson::SUCCESS) return kwb_err_; \
    } while (0)

std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

error_code rawJson(od::value v, std::string& out)
{
    od::json_type t;
    KWB_SJ(v.type().get(t));
    std::string_view raw;
    if (t == od::json_type::object) {
        od::object o;
        KWB_SJ(v.get_object().get(o));
        KWB_SJ(o.raw_json().get(raw));
    } else if (t == od::json_type::array) {
        od::array a;
        KWB_SJ(v.get_array().get(a));
        KWB_SJ(a.raw_json().get(raw));
    } else {
        raw = v.raw_json_token();
    }
    out.assign(trimRight(raw));
    return simdjson::SUCCESS;
}

error_code keepRaw(od::field& f, std::string_view key, RawFields& extra)
{
    RawField rf;
    rf.key.assign(key);
    KWB_SJ(rawJson(f.value(), rf.json));
    extra.push_back(std::move(rf));
    return simdjson::SUCCESS;
}

error_code readString(od::value v, std::string& out)
{
    bool isNull = false;
    KWB_SJ(v.is_null().get(isNull));
    if (isNull) {
        out.clear();
        return simdjson::SUCCESS;
    }
    std::string_view s;
    KWB_SJ(v.get_string().get(s));
    out.assign(s);
    return simdjson::SUCCESS;
}

error_code readOptDouble(od::value v, std::optional<double>& out)
{
    bool isNull = false;
    KWB_SJ(v.is_null().get(isNull));
    if (isNull) {
        out.reset();
        return simdjson::SUCCESS;
    }
    double d = 0;
    KWB_SJ(v.get_double().get(d));
    out = d;
    return simdjson::SUCCESS;
}

error_code readOptInt(od::value v, std::optional<std::int64_t>& out)
{
    bool isNull = false;
    KWB_SJ(v.is_null().get(isNull));
    if (isNull) {
        out.reset();
        return simdjson::SUCCESS;
    }
    std::int64_t i = 0;
    KWB_SJ(v.get_int64().get(i));
    out = i;
    return simdjson::SUCCESS;
}

error_code readOptBool(od::value v, std::optional<bool>& out)
{
    bool isNull = false;
    KWB_SJ(v.is_null().get(isNull));
    if (isNull) {
        out.reset();
        return simdjson::SUCCESS;
    }
    bool b = false;
    KWB_SJ(v.get_bool().get(b));
    out = b;
    return simdjson::SUCCESS;
}

error_code readProvenance(od::object obj, Provenance& p, ParseContext& ctx)
{
    for (auto fieldResult : obj) {
        od::field f;
        KWB_SJ(std::move(fieldResult).get(f));
        std::string_view key;
        KWB_SJ(f.unescaped_key().get(key));
        ctx.at("provenance.", key);
        if (key == "gpu") KWB_SJ(readString(f.value(), p.gpu));
        else if (key == "timer") KWB_SJ(readString(f.value(), p.timer));
        else if (key == "trials") KWB_SJ(readOptInt(f.value(), p.trials));
        else if (key == "l2_flush") KWB_SJ(readOptBool(f.value(), p.l2Flush));
        else if (key == "precision") KWB_SJ(readString(f.value(), p.precision));
        else if (key == "source") KWB_SJ(readString(f.value(), p.source));
        else if (key == "config") KWB_SJ(readString(f.value(), p.config));
        else if (key == "tolerance") {
            od::object tol;
            KWB_SJ(f.value().get_object().get(tol));
            for (auto tf : tol) {
                od::field t;
                KWB_SJ(std::move(tf).get(t));
                std::string_view tk;
                KWB_SJ(t.unescaped_key().get(tk));
                if (tk == "atol") KWB_SJ(readOptDouble(t.value(), p.tolerance.atol));
                else if (tk == "rtol") KWB_SJ(readOptDouble(t.value(), p.tolerance.rtol));
                else KWB_SJ(keepRaw(t, std::string("tolerance.") + std::string(tk), p.extra));
            }
        } else KWB_SJ(keepRaw(f, key, p.extra));
    }
    return simdjson::SUCCESS;
}

// Reads one stats member; returns true in `known` when the key belongs to RuntimeStats.
error_code readStatsMember(od::field& f, std::string_view key, RuntimeStats& s, bool& known, ParseContext& ctx)
{
    known = true;
    if (key == "mean_ms") return readOptDouble(f.value(), s.meanMs);
    if (key == "std_ms") return readOptDouble(f.value(), s.stdMs);
    if (key == "min_ms") return readOptDouble(f.value(), s.minMs);
    if (key == "max_ms") return readOptDouble(f.value(), s.maxMs);
    if (key == "median_ms") return readOptDouble(f.value(), s.medianMs);
    if (key == "provenance") {
        od::object o;
        KWB_SJ(f.value().get_object().get(o));
        return readProvenance(o, s.provenance, ctx);
    }
    known = false;
    return simdjson::SUCCESS;
}

error_code readCandidate(od::object obj, RuntimeStats& s, ParseContext& ctx)
{
    for (auto fr : obj) {
        od::field f;
        KWB_SJ(std::move(fr).get(f));
        std::string_view key;
        KWB_SJ(f.unescaped_key().get(key));
        ctx.at("candidate.", key);
        bool known = false;
        KWB_SJ(readStatsMember(f, key, s, known, ctx));
        if (!known) KWB_SJ(keepRaw(f, key, s.extra));
    }
    return simdjson::SUCCESS;
}

error_code readBaselines(od::array arr, std::vector<Baseline>& out, ParseContext& ctx)
{
    for (auto er : arr) {
        od::object obj;
        KWB_SJ(er.get_object().get(obj));
        Baseline b;
        for (auto fr : obj) {
            od::field f;
            KWB_SJ(std::move(fr).get(f));
            std::string_view key;
            KWB_SJ(f.unescaped_key().get(key));
            ctx.at("baselines", key, static_cast<long>(out.size()));
            if (key == "name") {
                KWB_SJ(readString(f.value(), b.name));
                continue;
            }
            bool known = false;
            KWB_SJ(readStatsMember(f, key, b.stats, known, ctx));
            if (!known) KWB_SJ(keepRaw(f, key, b.stats.extra));
        }
        out.push_back(std::move(b));
    }
    return simdjson::SUCCESS;
}

error_code readCoverage(od::object obj, Coverage& c, ParseContext& ctx)
{
    for (auto fr : obj) {
        od::field f;
        KWB_SJ(std::move(fr).get(f));
        std::string_view key;
        KWB_SJ(f.unescaped_key().get(key));
        ctx.at("verification.coverage.", key);
        if (key == "written_fraction") KWB_SJ(readOptDouble(f.value(), c.writtenFraction));
        else if (key == "written_elements") KWB_SJ(readOptInt(f.value(), c.writtenElements));
        else if (key == "total_elements") KWB_SJ(readOptInt(f.value(), c.totalElements));
        else if (key == "first_unwritten") {
            od::array a;
            KWB_SJ(f.value().get_array().get(a));
            for (auto e : a) {
                std::int64_t i = 0;
                KWB_SJ(e.get_int64().get(i));
                c.firstUnwritten.push_back(i);
            }
        } else if (key == "grid") {
            od::object g;
            KWB_SJ(f.value().get_object().get(g));
            for (auto gr : g) {
                od::field gf;
                KWB_SJ(std::move(gr).get(gf));
                std::string_view gk;
                KWB_SJ(gf.unescaped_key().get(gk));
                ctx.at("verification.coverage.grid.", gk);
                std::int64_t n = 0;
                if (gk == "rows") {
                    KWB_SJ(gf.value().get_int64().get(n));
                    c.grid.rows = static_cast<std::int32_t>(n);
                } else if (gk == "cols") {
                    KWB_SJ(gf.value().get_int64().get(n));
                    c.grid.cols = static_cast<std::int32_t>(n);
                } else if (gk == "written_fraction") {
                    od::array a;
                    KWB_SJ(gf.value().get_array().get(a));
                    for (auto e : a) {
                        double d = 0;
                        KWB_SJ(e.get_double().get(d));
                        c.grid.writtenFraction.push_back(static_cast<float>(d));
                    }
                } else KWB_SJ(keepRaw(gf, std::string("grid.") + std::string(gk), c.extra));
            }
        } else KWB_SJ(keepRaw(f, key, c.extra));
    }
    if (static_cast<std::int64_t>(c.grid.rows) * c.grid.cols != static_cast<std::int64_t>(c.grid.writtenFraction.size())
        || c.grid.rows < 0 || c.grid.cols < 0) {
        ctx.at("verification.coverage.grid", {});
        return simdjson::INCORRECT_TYPE;
    }
    return simdjson::SUCCESS;
}

error_code readVerification(od::object obj, Verification& v, ParseContext& ctx)
{
    for (auto fr : obj) {
        od::field f;
        KWB_SJ(std::move(fr).get(f));
        std::string_view key;
        KWB_SJ(f.unescaped_key().get(key));
        ctx.at("verification.", key);
        if (key == "coverage") {
            od::object c;
            KWB_SJ(f.value().get_object().get(c));
            v.coverage.emplace();
            KWB_SJ(readCoverage(c, *v.coverage, ctx));
        } else if (key == "flags") {
            od::array a;
            KWB_SJ(f.value().get_array().get(a));
            for (auto er : a) {
                od::object fo;
                KWB_SJ(er.get_object().get(fo));
                Flag flag;
                for (auto ffr : fo) {
                    od::field ff;
                    KWB_SJ(std::move(ffr).get(ff));
                    std::string_view fk;
                    KWB_SJ(ff.unescaped_key().get(fk));
                    if (fk == "code") KWB_SJ(readString(ff.value(), flag.code));
                    else if (fk == "reason") KWB_SJ(readString(ff.value(), flag.reason));
                    else if (fk == "severity") KWB_SJ(readString(ff.value(), flag.severity));
                }
                v.flags.push_back(std::move(flag));
            }
        } else KWB_SJ(keepRaw(f, key, v.extra));
    }
    return simdjson::SUCCESS;
}

// Set when the schema member says something we cannot read.
struct SchemaProblem {
    std::string message;
};

error_code readRecord(od::object obj, EvalRecord& r, ParseContext& ctx, SchemaProblem& schema)
{
    bool sawSchema = false;
    for (auto fr : obj) {
        od::field f;
        KWB_SJ(std::move(fr).get(f));
        std::string_view key;
        KWB_SJ(f.unescaped_key().get(key));
        ctx.at({}, key);
        if (key == "schema") {
            std::string s;
            KWB_SJ(readString(f.value(), s));
            sawSchema = true;
            if (s != kRecordSchema) {
                schema.message = s.rfind("kwb.record/", 0) == 0
                    ? "unsupported record schema version \"" + s + "\" (this build reads \"" + std::string(kRecordSchema) + "\")"
                    : "not a Kernel Workbench record: schema is \"" + s + "\"";
                return simdjson::SUCCESS;
            }
        } else if (key == "id") KWB_SJ(readString(f.value(), r.id));
        else if (key == "problem") {
            od::object p;
            KWB_SJ(f.value().get_object().get(p));
            for (auto pr : p) {
                od::field pf;
                KWB_SJ(std::move(pr).get(pf));
                std::string_view pk;
                KWB_SJ(pf.unescaped_key().get(pk));
                ctx.at("problem.", pk);
                if (pk == "suite") KWB_SJ(readString(pf.value(), r.problem.suite));
                else if (pk == "level") KWB_SJ(readOptInt(pf.value(), r.problem.level));
                else if (pk == "id") KWB_SJ(readOptInt(pf.value(), r.problem.id));
                else if (pk == "name") KWB_SJ(readString(pf.value(), r.problem.name));
                else KWB_SJ(keepRaw(pf, "problem." + std::string(pk), r.extra));
            }
        } else if (key == "model") KWB_SJ(readString(f.value(), r.model));
        else if (key == "run") KWB_SJ(readString(f.value(), r.run));
        else if (key == "sample") KWB_SJ(readOptInt(f.value(), r.sample));
        else if (key == "status") {
            od::object s;
            KWB_SJ(f.value().get_object().get(s));
            for (auto sr : s) {
                od::field sf;
                KWB_SJ(std::move(sr).get(sf));
                std::string_view sk;
                KWB_SJ(sf.unescaped_key().get(sk));
                ctx.at("status.", sk);
                if (sk == "outcome") {
                    std::string name;
                    KWB_SJ(readString(sf.value(), name));
                    auto o = outcomeFromName(name);
                    if (!o) return simdjson::INCORRECT_TYPE;
                    r.outcome = *o;
                } else if (sk == "compiled") {
                    KWB_SJ(sf.value().get_bool().get(r.compiled));
                } else if (sk == "correct") {
                    bool c = false; // derived from outcome; read to validate the type only
                    KWB_SJ(sf.value().get_bool().get(c));
                } else if (sk == "error") KWB_SJ(readString(sf.value(), r.error));
                else KWB_SJ(keepRaw(sf, "status." + std::string(sk), r.extra));
            }
        } else if (key == "candidate") {
            od::object c;
            KWB_SJ(f.value().get_object().get(c));
            KWB_SJ(readCandidate(c, r.candidate, ctx));
        } else if (key == "baselines") {
            od::array a;
            KWB_SJ(f.value().get_array().get(a));
            KWB_SJ(readBaselines(a, r.baselines, ctx));
        } else if (key == "speedup") KWB_SJ(readOptDouble(f.value(), r.speedup));
        else if (key == "speedup_baseline") KWB_SJ(readString(f.value(), r.speedupBaseline));
        else if (key == "verification") {
            od::object v;
            KWB_SJ(f.value().get_object().get(v));
            KWB_SJ(readVerification(v, r.verification, ctx));
        } else if (key == "source") {
            od::object s;
            KWB_SJ(f.value().get_object().get(s));
            for (auto sr : s) {
                od::field sf;
                KWB_SJ(std::move(sr).get(sf));
                std::string_view sk;
                KWB_SJ(sf.unescaped_key().get(sk));
                ctx.at("source.", sk);
                if (sk == "path") KWB_SJ(readString(sf.value(), r.source.path));
                else if (sk == "code") KWB_SJ(readString(sf.value(), r.source.code));
                else if (sk == "language") KWB_SJ(readString(sf.value(), r.source.language));
                else KWB_SJ(keepRaw(sf, "source." + std::string(sk), r.extra));
            }
        } else KWB_SJ(keepRaw(f, key, r.extra));
    }
    if (!sawSchema) schema.message = "missing \"schema\" member (expected \"" + std::string(kRecordSchema) + "\")";
    return simdjson::SUCCESS;
}

} // namespace

RecordSet parseNativeRecords(std::string_view text, const std::string& fileName, const TaskContext& tctx)
{
    return parseNativeRecords(text, fileName, tctx, 0);
}

RecordSet parseNativeRecords(std::string_view text, const std::string& fileName, const TaskContext& tctx, std::size_t readable)
{
    RecordSet set;
    FileReport report;
    report.file = fileName;
    report.format = "kwb-jsonl";

    // simdjson reads up to SIMDJSON_PADDING bytes past the end: parse in place
    // when the caller guarantees them (a mapping with slack in its last page),
    // else parse one padded copy.
    const std::size_t size = text.size();
    simdjson::padded_string padded;
    const char* base = text.data();
    if (readable < size + simdjson::SIMDJSON_PADDING) {
        padded = simdjson::padded_string(text);
        base = padded.data();
    }
    od::parser parser;

    std::int64_t lineNo = 0;
    std::size_t pos = 0;
    std::size_t lastReport = 0;
    auto addIssue = [&](Status s) {
        ++report.badRecords;
        if (report.issues.size() < kMaxIssuesPerFile) report.issues.push_back(std::move(s));
    };

    while (pos < size) {
        ++lineNo;
        const char* nl = static_cast<const char*>(std::memchr(base + pos, '\n', size - pos));
        const std::size_t end = nl ? static_cast<std::size_t>(nl - base) : size;
        std::size_t len = end - pos;
        if (len > 0 && base[pos + len - 1] == '\r') --len;
        std::string_view line(base + pos, len);
        const std::size_t lineStart = pos;
        pos = end + 1;

        if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
        if ((lineNo & 0x3FF) == 0) {
            if (tctx.cancelled()) {
                report.fatal = Status(ErrorCode::Cancelled, "loading cancelled", SourcePosition{fileName, lineNo});
                break;
            }
            if (lineStart - lastReport > (8u << 20)) {
                tctx.report("records", static_cast<std::int64_t>(lineStart), static_cast<std::int64_t>(size));
                lastReport = lineStart;
            }
        }

        EvalRecord record;
        ParseContext pctx;
        SchemaProblem schema;
        od::document doc;
        error_code err = parser.iterate(base + lineStart, len, size - lineStart + simdjson::SIMDJSON_PADDING).get(doc);
        const char* errorAt = nullptr;
        if (!err) {
            od::object obj;
            err = doc.get_object().get(obj);
            if (!err) err = readRecord(obj, record, pctx, schema);
            if (!err && schema.message.empty()) {
                // Trailing garbage after the object is an error too.
                auto rest = doc.current_location();
                if (!rest.error()) err = simdjson::TRAILING_CONTENT;
            }
            if (err) {
                auto loc = doc.current_location();
                if (!loc.error()) errorAt = loc.value_unsafe();
            }
        }
        if (err) {
            const std::string field = pctx.text();
            SourcePosition where{fileName, lineNo, 0, static_cast<std::int64_t>(lineStart), field};
            if (errorAt && errorAt >= base + lineStart && errorAt <= base + lineStart + len)
                where.column = static_cast<std::int64_t>(errorAt - (base + lineStart)) + 1;
            std::string reason = simdjson::error_message(err);
            if (err == simdjson::INCORRECT_TYPE && !field.empty())
                reason = "member \"" + field + "\" has the wrong type or value";
            else if (!field.empty())
                reason += " (in member \"" + field + "\")";
            addIssue(Status(err == simdjson::INCORRECT_TYPE ? ErrorCode::SchemaError : ErrorCode::ParseError, reason, where));
            continue;
        }
        if (!schema.message.empty()) {
            addIssue(Status(ErrorCode::SchemaError, schema.message, SourcePosition{fileName, lineNo, 1, static_cast<std::int64_t>(lineStart), "schema"}));
            continue;
        }
        if (record.id.empty()) record.id = fileName + "#" + std::to_string(lineNo);
        set.records.push_back(std::move(record));
    }
    report.records = set.records.size();
    if (report.records == 0 && report.badRecords > 0 && report.fatal.isOk()) {
        report.fatal = Status(ErrorCode::SchemaError,
            "no line of this file is a valid record (" + std::to_string(report.badRecords) + " bad); first: "
                + report.issues.front().message(),
            report.issues.front().where());
    }
    tctx.report("records", static_cast<std::int64_t>(size), static_cast<std::int64_t>(size));
    set.files.push_back(std::move(report));
    return set;
}

RecordSet loadNativeRecords(const std::string& path, const TaskContext& ctx)
{
    auto mapped = MappedFile::open(path);
    if (!mapped) {
        RecordSet set;
        FileReport report;
        report.file = path;
        report.format = "kwb-jsonl";
        report.fatal = mapped.status();
        set.files.push_back(std::move(report));
        return set;
    }
    return parseNativeRecords(mapped->data(), path, ctx, mapped->readableSize());
}

} // namespace kwb
