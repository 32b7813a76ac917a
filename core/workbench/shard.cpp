#include "workbench/shard.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "records/record_loader.h"

namespace kwb {

namespace {

bool parseUnsigned(std::string_view s, std::uint32_t& out)
{
    if (s.empty()) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

} // namespace

Result<ShardSpec> parseShardSpec(std::string_view text)
{
    const auto slash = text.find('/');
    ShardSpec s;
    if (slash == std::string_view::npos || !parseUnsigned(text.substr(0, slash), s.index)
        || !parseUnsigned(text.substr(slash + 1), s.count))
        return Status(ErrorCode::InvalidArgument, "'" + std::string(text) + "' is not I/N (shard I of N, counted from 0)");
    if (s.count == 0 || s.count > kMaxShards)
        return Status(ErrorCode::InvalidArgument,
            "'" + std::string(text) + "': the shard count must be between 1 and " + std::to_string(kMaxShards));
    if (s.index >= s.count)
        return Status(ErrorCode::InvalidArgument,
            "'" + std::string(text) + "': shards are counted from 0, so the index must be below " + std::to_string(s.count));
    return s;
}

std::string shardSpecText(const ShardSpec& shard) { return std::to_string(shard.index) + "/" + std::to_string(shard.count); }

std::uint64_t recordIdHash(std::string_view recordId)
{
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : recordId) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::uint32_t shardOf(std::string_view recordId, std::uint32_t count)
{
    return count <= 1 ? 0 : static_cast<std::uint32_t>(recordIdHash(recordId) % count);
}

Result<std::vector<std::string>> inputRecordOrder(const std::vector<std::string>& files)
{
    std::vector<std::string> order;
    std::set<std::string> seen;
    for (const auto& file : files) {
        // One file at a time, as kwb verify plans them: the same order.
        const RecordSet set = loadRecordFiles({file});
        for (const auto& f : set.files)
            if (!f.ok()) return f.fatal;
        for (const auto& r : set.records)
            if (seen.insert(r.id).second) order.push_back(r.id);
    }
    return order;
}

Result<std::vector<RecordLine>> readRecordLines(const std::string& path)
{
    KWB_ASSIGN_OR_RETURN(std::string text, readFileContents(path));
    std::vector<RecordLine> lines;
    std::size_t pos = 0;
    std::int64_t lineNo = 0;
    while (pos < text.size()) {
        ++lineNo;
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            return Status(ErrorCode::ParseError, "the last line is incomplete (an interrupted write?)",
                SourcePosition{path, lineNo, 1});
        std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            return Status(ErrorCode::ParseError, "not a JSON object", SourcePosition{path, lineNo, 1});
        const auto id = j.find("id");
        if (id == j.end() || !id->is_string())
            return Status(ErrorCode::SchemaError, "the record has no string \"id\"", SourcePosition{path, lineNo, 1, -1, "id"});
        lines.push_back({id->get<std::string>(), std::move(line), lineNo});
    }
    return lines;
}

Result<std::string> mergeShardParts(const std::vector<std::string>& order, const std::vector<ShardPart>& parts)
{
    const auto count = static_cast<std::uint32_t>(parts.size());
    std::unordered_map<std::string, std::pair<const RecordLine*, const ShardPart*>> byId;
    std::set<std::string> wanted(order.begin(), order.end());
    for (std::uint32_t i = 0; i < count; ++i) {
        for (const auto& l : parts[i].lines) {
            const SourcePosition at{parts[i].path, l.line, 1, -1, l.id};
            if (!wanted.count(l.id))
                return Status(ErrorCode::SchemaError, "record '" + l.id + "' is not one of the input records", at);
            if (shardOf(l.id, count) != i)
                return Status(ErrorCode::SchemaError,
                    "record '" + l.id + "' belongs to shard " + std::to_string(shardOf(l.id, count)) + " of "
                        + std::to_string(count) + ", not to shard " + std::to_string(i),
                    at);
            const auto [it, fresh] = byId.emplace(l.id, std::make_pair(&l, &parts[i]));
            if (!fresh)
                return Status(ErrorCode::SchemaError,
                    "record '" + l.id + "' appears twice (first at " + it->second.second->path + ":"
                        + std::to_string(it->second.first->line) + ")",
                    at);
        }
    }
    std::map<std::uint32_t, std::size_t> missingPerShard;
    std::string firstMissing;
    for (const auto& id : order)
        if (!byId.count(id)) {
            if (firstMissing.empty()) firstMissing = id;
            ++missingPerShard[shardOf(id, count)];
        }
    if (!missingPerShard.empty()) {
        std::string list;
        for (const auto& [shard, n] : missingPerShard)
            list += (list.empty() ? "" : ", ") + parts[shard].path + " lacks " + std::to_string(n);
        return Status(ErrorCode::NotFound, "the parts are incomplete (" + list + " record(s); first missing: '" + firstMissing + "')");
    }
    std::string out;
    for (const auto& id : order) {
        out += byId.at(id).first->text;
        out += '\n';
    }
    return out;
}

Status writeFileAtomically(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return Status(ErrorCode::IoError, "cannot create the temporary file", SourcePosition{tmp});
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0
        && ::fsync(::fileno(f)) == 0;
    if (std::fclose(f) != 0 || !written) {
        std::remove(tmp.c_str());
        return Status(ErrorCode::IoError, "cannot write the temporary file", SourcePosition{tmp});
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        return Status(ErrorCode::IoError, "cannot rename " + tmp + " over it: " + ec.message(), SourcePosition{path});
    }
    return Status::ok();
}

Result<bool> sortRecordFile(const std::string& path, const std::vector<std::string>& order)
{
    KWB_ASSIGN_OR_RETURN(std::vector<RecordLine> lines, readRecordLines(path));
    std::unordered_map<std::string, std::size_t> rank;
    for (std::size_t i = 0; i < order.size(); ++i) rank.emplace(order[i], i);
    std::vector<std::size_t> perm(lines.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    const auto key = [&](std::size_t i) {
        const auto it = rank.find(lines[i].id);
        return it == rank.end() ? order.size() : it->second; // unknown ids keep their order at the end
    };
    std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    bool sorted = true;
    for (std::size_t i = 0; i < perm.size(); ++i) sorted = sorted && perm[i] == i;
    if (sorted) return false;
    std::string text;
    for (const std::size_t i : perm) text += lines[i].text + "\n";
    KWB_RETURN_IF_ERROR(writeFileAtomically(path, text));
    return true;
}

} // namespace kwb
