#include "records/native_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/json_writer.h"

namespace kwb {

namespace {

void writeRaw(JsonWriter& w, const RawFields& extra)
{
    for (const auto& f : extra) w.key(f.key).raw(f.json);
}

void writeProvenance(JsonWriter& w, const Provenance& p)
{
    w.beginObject();
    w.nonEmptyField("gpu", p.gpu);
    w.nonEmptyField("timer", p.timer);
    w.optionalField("trials", p.trials);
    w.optionalField("l2_flush", p.l2Flush);
    if (p.tolerance.atol || p.tolerance.rtol) {
        w.key("tolerance").beginObject();
        w.optionalField("atol", p.tolerance.atol);
        w.optionalField("rtol", p.tolerance.rtol);
        w.endObject();
    }
    w.nonEmptyField("precision", p.precision);
    w.nonEmptyField("source", p.source);
    w.nonEmptyField("config", p.config);
    writeRaw(w, p.extra);
    w.endObject();
}

void writeStatsMembers(JsonWriter& w, const RuntimeStats& s)
{
    w.optionalField("mean_ms", s.meanMs);
    w.optionalField("std_ms", s.stdMs);
    w.optionalField("min_ms", s.minMs);
    w.optionalField("max_ms", s.maxMs);
    w.optionalField("median_ms", s.medianMs);
    if (!s.provenance.empty()) {
        w.key("provenance");
        writeProvenance(w, s.provenance);
    }
    writeRaw(w, s.extra);
}

void writeCoverage(JsonWriter& w, const Coverage& c)
{
    w.beginObject();
    w.optionalField("written_fraction", c.writtenFraction);
    w.optionalField("written_elements", c.writtenElements);
    w.optionalField("total_elements", c.totalElements);
    if (!c.firstUnwritten.empty()) {
        w.key("first_unwritten").beginArray();
        for (auto i : c.firstUnwritten) w.value(i);
        w.endArray();
    }
    if (c.grid.rows > 0 && c.grid.cols > 0) {
        w.key("grid").beginObject();
        w.field("rows", static_cast<std::int64_t>(c.grid.rows));
        w.field("cols", static_cast<std::int64_t>(c.grid.cols));
        w.key("written_fraction").beginArray();
        for (float v : c.grid.writtenFraction) w.value(static_cast<double>(v));
        w.endArray();
        w.endObject();
    }
    writeRaw(w, c.extra);
    w.endObject();
}

} // namespace

void writeRecordJson(JsonWriter& w, const EvalRecord& r)
{
    w.beginObject();
    w.field("schema", kRecordSchema);
    w.field("id", r.id);

    w.key("problem").beginObject();
    w.nonEmptyField("suite", r.problem.suite);
    w.optionalField("level", r.problem.level);
    w.optionalField("id", r.problem.id);
    w.nonEmptyField("name", r.problem.name);
    w.endObject();

    w.nonEmptyField("model", r.model);
    w.nonEmptyField("run", r.run);
    w.optionalField("sample", r.sample);

    w.key("status").beginObject();
    w.field("outcome", outcomeName(r.outcome));
    w.field("compiled", r.compiled);
    w.field("correct", r.isCorrect());
    w.nonEmptyField("error", r.error);
    w.endObject();

    if (!r.candidate.empty()) {
        w.key("candidate").beginObject();
        writeStatsMembers(w, r.candidate);
        w.endObject();
    }
    if (!r.baselines.empty()) {
        w.key("baselines").beginArray();
        for (const auto& b : r.baselines) {
            w.beginObject();
            w.field("name", b.name);
            writeStatsMembers(w, b.stats);
            w.endObject();
        }
        w.endArray();
    }
    w.optionalField("speedup", r.speedup);
    w.nonEmptyField("speedup_baseline", r.speedupBaseline);

    if (!r.verification.empty()) {
        w.key("verification").beginObject();
        if (r.verification.coverage) {
            w.key("coverage");
            writeCoverage(w, *r.verification.coverage);
        }
        if (!r.verification.flags.empty()) {
            w.key("flags").beginArray();
            for (const auto& f : r.verification.flags) {
                w.beginObject();
                w.field("code", f.code);
                w.field("reason", f.reason);
                w.nonEmptyField("severity", f.severity);
                writeRaw(w, f.extra);
                w.endObject();
            }
            w.endArray();
        }
        writeRaw(w, r.verification.extra);
        w.endObject();
    }
    if (!r.source.empty()) {
        w.key("source").beginObject();
        w.nonEmptyField("path", r.source.path);
        w.nonEmptyField("language", r.source.language);
        w.nonEmptyField("code", r.source.code);
        w.endObject();
    }
    writeRaw(w, r.extra);
    w.endObject();
}

std::string recordToJsonLine(const EvalRecord& record)
{
    std::string out;
    out.reserve(512);
    JsonWriter w(out);
    writeRecordJson(w, record);
    out.push_back('\n');
    return out;
}

Status writeRecordsFile(const std::string& path, const std::vector<EvalRecord>& records)
{
    const std::string tmp = path + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return Status(ErrorCode::IoError, std::string("cannot write: ") + std::strerror(errno), SourcePosition{path});
    std::string buffer;
    buffer.reserve(1 << 20);
    bool ok = true;
    for (const auto& r : records) {
        buffer += recordToJsonLine(r);
        if (buffer.size() > (1u << 20)) {
            ok = ok && std::fwrite(buffer.data(), 1, buffer.size(), f) == buffer.size();
            buffer.clear();
        }
    }
    ok = ok && std::fwrite(buffer.data(), 1, buffer.size(), f) == buffer.size();
    ok = (std::fclose(f) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        return Status(ErrorCode::IoError, std::string("write failed: ") + std::strerror(errno), SourcePosition{path});
    }
    return Status::ok();
}

} // namespace kwb
