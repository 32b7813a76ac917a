#include "records/record_loader.h"

#include "workbench/input_kind.h"

#include <algorithm>
#include <filesystem>
#include <span>
#include <unordered_set>

#include "base/mapped_file.h"
#include "records/leaderboard_importer.h"
#include "records/native_reader.h"

namespace kwb {

namespace fs = std::filesystem;

const char* recordFormatName(RecordFormat f)
{
    switch (f) {
    case RecordFormat::Auto: return "auto";
    case RecordFormat::Native: return "kwb-jsonl";
    case RecordFormat::KernelBenchEval: return "kernelbench-eval";
    case RecordFormat::KernelBenchBaseline: return "kernelbench-baseline";
    case RecordFormat::Leaderboard: return "leaderboard";
    }
    return "auto";
}

std::optional<RecordFormat> recordFormatFromName(std::string_view name)
{
    for (auto f : {RecordFormat::Auto, RecordFormat::Native, RecordFormat::KernelBenchEval,
             RecordFormat::KernelBenchBaseline, RecordFormat::Leaderboard})
        if (name == recordFormatName(f)) return f;
    if (name == "native" || name == "jsonl") return RecordFormat::Native;
    return std::nullopt;
}

namespace {

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isRecordFileName(const std::string& name)
{
    for (std::string_view ext : {".jsonl", ".json", ".ndjson", ".jsonl.gz", ".json.gz"})
        if (endsWith(name, ext)) return true;
    return false;
}

void expandPaths(const std::vector<std::string>& inputs, std::vector<std::string>& files, RecordSet& out)
{
    for (const auto& in : inputs) {
        std::error_code ec;
        if (fs::is_directory(in, ec)) {
            std::vector<std::string> found;
            for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
                if (it->is_regular_file(ec) && isRecordFileName(it->path().filename().string()))
                    found.push_back(it->path().string());
            }
            std::sort(found.begin(), found.end());
            if (found.empty()) {
                FileReport r;
                r.file = in;
                r.fatal = Status(ErrorCode::NotFound, "folder holds no .json or .jsonl files", SourcePosition{in});
                out.files.push_back(std::move(r));
            }
            files.insert(files.end(), found.begin(), found.end());
        } else {
            files.push_back(in);
        }
    }
}

} // namespace

RecordFormat detectRecordFormat(const std::string& path, std::string_view head)
{
    // One sniffer for every input kind (core/workbench/input_kind.h).
    switch (classifyInputHead(path, head)) {
    case InputKind::NativeRecords: return RecordFormat::Native;
    case InputKind::KernelBenchEval: return RecordFormat::KernelBenchEval;
    case InputKind::KernelBenchBaseline: return RecordFormat::KernelBenchBaseline;
    case InputKind::Leaderboard: return RecordFormat::Leaderboard;
    default: return RecordFormat::Auto;
    }
}

namespace {

bool hasStoredRerun(const EvalRecord& r)
{
    return r.verification.storedRerun() != nullptr;
}

// The leaderboard's raw_data.json and kwb verify's output of it, loaded together, hold each
// record twice under one id: the re-run copy stands for the record (counting both would show
// every claim twice, and the raw copy as still unverified). Same-id records that are both
// re-run, or neither, all stay: they are different evaluations that share a name.
void supersedeUnverified(RecordSet& all)
{
    // Copies of the ids: remove_if below moves the records (and their short ids' inline buffers).
    std::unordered_set<std::string> verifiedIds;
    for (const auto& r : all.records)
        if (!r.id.empty() && hasStoredRerun(r)) verifiedIds.insert(r.id);
    if (verifiedIds.empty()) return;
    const auto superseded = [&](const EvalRecord& r) {
        return !r.id.empty() && !hasStoredRerun(r) && verifiedIds.count(r.id) > 0;
    };
    const std::size_t before = all.records.size();
    all.records.erase(std::remove_if(all.records.begin(), all.records.end(), superseded), all.records.end());
    all.supersededByVerified += before - all.records.size();
}

} // namespace

RecordSet loadRecordFiles(const std::vector<std::string>& paths, const RecordLoadOptions& options, const TaskContext& ctx)
{
    RecordSet all;
    std::vector<std::string> files;
    expandPaths(paths, files, all);
    for (const auto& b : options.baselineFiles) files.push_back(b);

    std::vector<BaselineTable> baselines;
    std::vector<std::size_t> evalRecordRanges; // [begin, end) pairs into all.records of KernelBench eval records
    std::int64_t index = 0;
    for (const auto& file : files) {
        if (ctx.cancelled()) break;
        ctx.report("files", index++, static_cast<std::int64_t>(files.size()));
        auto mapped = MappedFile::open(file, true);
        if (!mapped) {
            FileReport r;
            r.file = file;
            r.fatal = mapped.status();
            all.files.push_back(std::move(r));
            continue;
        }
        // Plain files are parsed straight from the mapping; gzip is inflated first.
        std::string inflated;
        std::string_view text = mapped->data();
        std::size_t readable = mapped->readableSize();
        if (looksGzipped(text)) {
            auto contents = readFileContents(file);
            if (!contents) {
                FileReport r;
                r.file = file;
                r.fatal = contents.status();
                all.files.push_back(std::move(r));
                continue;
            }
            inflated = std::move(contents).value();
            text = inflated;
            readable = 0;
        }
        const std::string_view* data = &text;
        RecordFormat format = options.format;
        const bool isExtraBaseline
            = std::find(options.baselineFiles.begin(), options.baselineFiles.end(), file) != options.baselineFiles.end();
        if (isExtraBaseline) format = RecordFormat::KernelBenchBaseline;
        if (format == RecordFormat::Auto) format = detectRecordFormat(file, data->substr(0, 4096));
        switch (format) {
        case RecordFormat::Native: all.append(parseNativeRecords(*data, file, ctx, readable)); break;
        case RecordFormat::Leaderboard: all.append(importLeaderboard(*data, file)); break;
        case RecordFormat::KernelBenchEval: {
            const std::size_t begin = all.records.size();
            all.append(importKernelBenchEval(*data, file, options.kernelbench));
            evalRecordRanges.push_back(begin);
            evalRecordRanges.push_back(all.records.size());
            break;
        }
        case RecordFormat::KernelBenchBaseline: {
            FileReport r;
            r.file = file;
            r.format = recordFormatName(RecordFormat::KernelBenchBaseline);
            auto table = parseKernelBenchBaseline(*data, file);
            if (!table) {
                r.fatal = table.status();
            } else {
                r.records = table->entries.size();
                r.badRecords = table->badEntries;
                r.issues = table->issues;
                baselines.push_back(std::move(table).value());
            }
            all.files.push_back(std::move(r));
            break;
        }
        case RecordFormat::Auto: {
            FileReport r;
            r.file = file;
            SourcePosition where{file, 1, 1, 0};
            r.fatal = Status(ErrorCode::SchemaError,
                data->empty() ? "file is empty"
                              : "not a recognised record format (expected Kernel Workbench JSONL, KernelBench "
                                "eval_results.json or baseline timing JSON, or a leaderboard list)",
                where);
            all.files.push_back(std::move(r));
            break;
        }
        }
    }
    // Baselines join to the KernelBench eval records loaded in the same call.
    for (const auto& table : baselines)
        for (std::size_t i = 0; i + 1 < evalRecordRanges.size(); i += 2)
            joinBaseline(std::span<EvalRecord>(all.records).subspan(evalRecordRanges[i], evalRecordRanges[i + 1] - evalRecordRanges[i]), table);
    supersedeUnverified(all);
    ctx.report("files", index, static_cast<std::int64_t>(files.size()));
    return all;
}

std::vector<std::string> recordLoadHints(const RecordSet& set)
{
    std::vector<std::string> hints;
    bool hasEval = false;
    for (const auto& f : set.files) hasEval = hasEval || f.format == recordFormatName(RecordFormat::KernelBenchEval);
    bool baseline = false;
    for (const auto& f : set.files) {
        if (hasEval || !f.ok() || f.format != recordFormatName(RecordFormat::KernelBenchBaseline)) continue;
        baseline = true;
        hints.push_back(f.file + ": KernelBench baseline timings of " + std::to_string(f.records) +
                        " problems, not evaluation records: they give the speedups of a run's eval_results.json. "
                        "Load both together (kwb summary runs/RUN/eval_results.json " + f.file +
                        ", or --baseline " + f.file + "; in the window, open both).");
    }
    if (set.supersededByVerified > 0)
        hints.push_back(std::to_string(set.supersededByVerified) + " record" + (set.supersededByVerified == 1 ? " was" : "s were")
                        + " loaded twice under one id, as they came and as kwb verify re-ran them: the re-run copies "
                          "stand for them (the others are left out)");
    if (!baseline && set.records.empty()) {
        std::size_t read = 0;
        for (const auto& f : set.files) read += f.ok() ? 1 : 0;
        if (read > 0)
            hints.push_back("no records in the " + std::to_string(read) + " file" + (read == 1 ? "" : "s") + " read");
    }
    return hints;
}

} // namespace kwb
