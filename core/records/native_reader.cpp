#include "records/native_reader.h"

#include <cstring>
#include <simdjson.h>

#include "base/json_scanner.h"
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
    // Set when a member kept verbatim is not valid JSON: where and why.
    const char* rawErrorAt = nullptr;
    std::string rawError;
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

error_code rawJson(od::value v, std::string& out, std::string_view& rawOut)
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
    rawOut = trimRight(raw);
    out.assign(rawOut);
    return simdjson::SUCCESS;
}

// Keeps an unknown member's JSON text to write it back; the on-demand parser
// has not validated text it skipped, so it is checked strictly here, else a
// malformed value would be written back verbatim.
error_code keepRaw(ParseContext& ctx, od::field& f, std::string_view key, RawFields& extra)
{
    RawField rf;
    rf.key.assign(key);
    std::string_view raw;
    KWB_SJ(rawJson(f.value(), rf.json, raw));
    if (auto bad = jscan::validateJson(rf.json)) {
        ctx.rawError = bad->what;
        ctx.rawErrorAt = raw.data() + std::min(bad->offset, raw.size());
        return simdjson::TAPE_ERROR;
    }
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

// Reads an optional scalar: JSON null clears it.
template <typename T, typename Get>
error_code readOpt(od::value v, std::optional<T>& out, Get get)
{
    bool isNull = false;
    KWB_SJ(v.is_null().get(isNull));
    if (isNull) {
        out.reset();
        return simdjson::SUCCESS;
    }
    T value{};
    KWB_SJ(get(v).get(value));
    out = value;
    return simdjson::SUCCESS;
}

error_code readOptDouble(od::value v, std::optional<double>& out)
{
    return readOpt(v, out, [](od::value& x) { return x.get_double(); });
}

error_code readOptInt(od::value v, std::optional<std::int64_t>& out)
{
    return readOpt(v, out, [](od::value& x) { return x.get_int64(); });
}

error_code readOptBool(od::value v, std::optional<bool>& out)
{
    return readOpt(v, out, [](od::value& x) { return x.get_bool(); });
}

// Calls fn(field, key) for every member of an object value; stops at the first error.
template <typename Fn>
error_code forEachField(od::value v, Fn&& fn)
{
    od::object obj;
    KWB_SJ(v.get_object().get(obj));
    for (auto fr : obj) {
        od::field f;
        KWB_SJ(std::move(fr).get(f));
        std::string_view key;
        KWB_SJ(f.unescaped_key().get(key));
        KWB_SJ(fn(f, key));
    }
    return simdjson::SUCCESS;
}

// Calls fn(value, index) for every element of an array value.
template <typename Fn>
error_code forEachElement(od::value v, Fn&& fn)
{
    od::array arr;
    KWB_SJ(v.get_array().get(arr));
    long index = 0;
    for (auto er : arr) {
        od::value e;
        KWB_SJ(std::move(er).get(e));
        KWB_SJ(fn(e, index++));
    }
    return simdjson::SUCCESS;
}

error_code readProvenance(od::value v, Provenance& p, ParseContext& ctx)
{
    return forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("provenance.", key);
        if (key == "gpu") return readString(f.value(), p.gpu);
        if (key == "timer") return readString(f.value(), p.timer);
        if (key == "trials") return readOptInt(f.value(), p.trials);
        if (key == "l2_flush") return readOptBool(f.value(), p.l2Flush);
        if (key == "precision") return readString(f.value(), p.precision);
        if (key == "source") return readString(f.value(), p.source);
        if (key == "config") return readString(f.value(), p.config);
        if (key == "tolerance") {
            return forEachField(f.value(), [&](od::field& t, std::string_view tk) -> error_code {
                if (tk == "atol") return readOptDouble(t.value(), p.tolerance.atol);
                if (tk == "rtol") return readOptDouble(t.value(), p.tolerance.rtol);
                return keepRaw(ctx, t, std::string("tolerance.") + std::string(tk), p.extra);
            });
        }
        return keepRaw(ctx, f, key, p.extra);
    });
}

// Members shared by the candidate and every baseline; unknown ones are kept.
error_code readStatsMember(od::field& f, std::string_view key, RuntimeStats& s, ParseContext& ctx)
{
    if (key == "mean_ms") return readOptDouble(f.value(), s.meanMs);
    if (key == "std_ms") return readOptDouble(f.value(), s.stdMs);
    if (key == "min_ms") return readOptDouble(f.value(), s.minMs);
    if (key == "max_ms") return readOptDouble(f.value(), s.maxMs);
    if (key == "median_ms") return readOptDouble(f.value(), s.medianMs);
    if (key == "provenance") return readProvenance(f.value(), s.provenance, ctx);
    return keepRaw(ctx, f, key, s.extra);
}

error_code readCandidate(od::value v, RuntimeStats& s, ParseContext& ctx)
{
    return forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("candidate.", key);
        return readStatsMember(f, key, s, ctx);
    });
}

error_code readBaselines(od::value v, std::vector<Baseline>& out, ParseContext& ctx)
{
    return forEachElement(v, [&](od::value e, long index) -> error_code {
        Baseline b;
        const error_code err = forEachField(e, [&](od::field& f, std::string_view key) -> error_code {
            ctx.at("baselines", key, index);
            if (key == "name") return readString(f.value(), b.name);
            return readStatsMember(f, key, b.stats, ctx);
        });
        out.push_back(std::move(b));
        return err;
    });
}

error_code readGrid(od::value v, Coverage& c, ParseContext& ctx)
{
    return forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("verification.coverage.grid.", key);
        std::int64_t n = 0;
        if (key == "rows" || key == "cols") {
            KWB_SJ(f.value().get_int64().get(n));
            if (n < 0 || n > (1 << 20)) return simdjson::NUMBER_OUT_OF_RANGE;
            (key == "rows" ? c.grid.rows : c.grid.cols) = static_cast<std::int32_t>(n);
            return simdjson::SUCCESS;
        }
        if (key == "written_fraction") {
            return forEachElement(f.value(), [&](od::value e, long) -> error_code {
                double d = 0;
                KWB_SJ(e.get_double().get(d));
                // A share of a cell: in [0, 1] (1e300 would become an infinite float, written back as null).
                if (!(d >= 0.0 && d <= 1.0)) return simdjson::NUMBER_OUT_OF_RANGE;
                c.grid.writtenFraction.push_back(static_cast<float>(d));
                return simdjson::SUCCESS;
            });
        }
        return keepRaw(ctx, f, std::string("grid.") + std::string(key), c.extra);
    });
}

error_code readCoverage(od::value v, Coverage& c, ParseContext& ctx)
{
    const error_code err = forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("verification.coverage.", key);
        if (key == "written_fraction") return readOptDouble(f.value(), c.writtenFraction);
        if (key == "written_elements") return readOptInt(f.value(), c.writtenElements);
        if (key == "total_elements") return readOptInt(f.value(), c.totalElements);
        if (key == "first_unwritten") {
            return forEachElement(f.value(), [&](od::value e, long) -> error_code {
                std::int64_t i = 0;
                KWB_SJ(e.get_int64().get(i));
                c.firstUnwritten.push_back(i);
                return simdjson::SUCCESS;
            });
        }
        if (key == "grid") return readGrid(f.value(), c, ctx);
        return keepRaw(ctx, f, key, c.extra);
    });
    if (err) return err;
    if (static_cast<std::int64_t>(c.grid.rows) * c.grid.cols != static_cast<std::int64_t>(c.grid.writtenFraction.size())) {
        ctx.at("verification.coverage.grid", {});
        return simdjson::INCORRECT_TYPE;
    }
    return simdjson::SUCCESS;
}

error_code readVerification(od::value v, Verification& out, ParseContext& ctx)
{
    return forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("verification.", key);
        if (key == "coverage") {
            out.coverage.emplace();
            return readCoverage(f.value(), *out.coverage, ctx);
        }
        if (key == "flags") {
            return forEachElement(f.value(), [&](od::value e, long index) -> error_code {
                Flag flag;
                const error_code err = forEachField(e, [&](od::field& ff, std::string_view fk) -> error_code {
                    ctx.at("verification.flags", fk, index);
                    if (fk == "code") return readString(ff.value(), flag.code);
                    if (fk == "reason") return readString(ff.value(), flag.reason);
                    if (fk == "severity") return readString(ff.value(), flag.severity);
                    return keepRaw(ctx, ff, fk, flag.extra);
                });
                out.flags.push_back(std::move(flag));
                return err;
            });
        }
        return keepRaw(ctx, f, key, out.extra);
    });
}

// Set when the schema member says something we cannot read.
struct SchemaProblem {
    std::string message;
};

error_code readProblem(od::value v, EvalRecord& r, ParseContext& ctx)
{
    return forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("problem.", key);
        if (key == "suite") return readString(f.value(), r.problem.suite);
        if (key == "level") return readOptInt(f.value(), r.problem.level);
        if (key == "id") return readOptInt(f.value(), r.problem.id);
        if (key == "name") return readString(f.value(), r.problem.name);
        return keepRaw(ctx, f, "problem." + std::string(key), r.extra);
    });
}

error_code readStatus(od::value v, EvalRecord& r, ParseContext& ctx)
{
    return forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("status.", key);
        if (key == "outcome") {
            std::string name;
            KWB_SJ(readString(f.value(), name));
            auto o = outcomeFromName(name);
            if (!o) return simdjson::INCORRECT_TYPE;
            r.outcome = *o;
            return simdjson::SUCCESS;
        }
        if (key == "compiled") return f.value().get_bool().get(r.compiled);
        if (key == "correct") {
            bool c = false; // derived from the outcome; read only to check its type
            return f.value().get_bool().get(c);
        }
        if (key == "error") return readString(f.value(), r.error);
        return keepRaw(ctx, f, "status." + std::string(key), r.extra);
    });
}

error_code readSource(od::value v, EvalRecord& r, ParseContext& ctx)
{
    return forEachField(v, [&](od::field& f, std::string_view key) -> error_code {
        ctx.at("source.", key);
        if (key == "path") return readString(f.value(), r.source.path);
        if (key == "code") return readString(f.value(), r.source.code);
        if (key == "language") return readString(f.value(), r.source.language);
        return keepRaw(ctx, f, "source." + std::string(key), r.extra);
    });
}

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
        else if (key == "problem") KWB_SJ(readProblem(f.value(), r, ctx));
        else if (key == "model") KWB_SJ(readString(f.value(), r.model));
        else if (key == "run") KWB_SJ(readString(f.value(), r.run));
        else if (key == "sample") KWB_SJ(readOptInt(f.value(), r.sample));
        else if (key == "status") KWB_SJ(readStatus(f.value(), r, ctx));
        else if (key == "candidate") KWB_SJ(readCandidate(f.value(), r.candidate, ctx));
        else if (key == "baselines") KWB_SJ(readBaselines(f.value(), r.baselines, ctx));
        else if (key == "speedup") KWB_SJ(readOptDouble(f.value(), r.speedup));
        else if (key == "speedup_baseline") KWB_SJ(readString(f.value(), r.speedupBaseline));
        else if (key == "verification") KWB_SJ(readVerification(f.value(), r.verification, ctx));
        else if (key == "source") KWB_SJ(readSource(f.value(), r, ctx));
        else KWB_SJ(keepRaw(ctx, f, key, r.extra));
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

    // One allocation for the records: count the lines first (memchr runs at memory speed).
    std::size_t lines = 0;
    for (const char* p = base; (p = static_cast<const char*>(std::memchr(p, '\n', size - static_cast<std::size_t>(p - base))));
         ++p)
        ++lines;
    // Capped by the size: a file of blank lines must not reserve a record each.
    set.records.reserve(std::min(lines + 1, size / 256 + 1));

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

        if (lineNo == 1 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") {
            // A UTF-8 byte-order mark is not part of the first record.
            line.remove_prefix(3);
            len -= 3;
        }
        const std::size_t recordStart = static_cast<std::size_t>(line.data() - base);
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
        error_code err = parser.iterate(base + recordStart, len, size - recordStart + simdjson::SIMDJSON_PADDING).get(doc);
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
            std::string reason = simdjson::error_message(err);
            if (!pctx.rawError.empty()) {
                errorAt = pctx.rawErrorAt;
                reason = pctx.rawError;
            } else if (!errorAt || err == simdjson::UTF8_ERROR || err == simdjson::UNESCAPED_CHARS || err == simdjson::TAPE_ERROR) {
                // The on-demand parser often knows no position: the strict scanner finds it.
                if (auto bad = jscan::validateJson(line)) {
                    errorAt = line.data() + std::min(bad->offset, line.size());
                    reason = bad->what;
                }
            }
            if (errorAt && errorAt >= base + lineStart && errorAt <= base + lineStart + len + 3)
                where.column = static_cast<std::int64_t>(errorAt - (base + lineStart)) + 1;
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
    auto mapped = MappedFile::open(path, true);
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
