#include "records/problem_names.h"

#include <charconv>
#include <filesystem>
#include <system_error>

namespace kwb {

namespace fs = std::filesystem;

namespace {

// "level12" -> 12
std::optional<std::int64_t> levelOf(const std::string& folder)
{
    if (folder.rfind("level", 0) != 0 || folder.size() == 5) return std::nullopt;
    std::int64_t level = 0;
    const char* first = folder.data() + 5;
    const char* last = folder.data() + folder.size();
    const auto [end, ec] = std::from_chars(first, last, level);
    if (ec != std::errc() || end != last) return std::nullopt;
    return level;
}

} // namespace

Result<ProblemNames> ProblemNames::scan(const std::string& dir)
{
    std::error_code ec;
    fs::path root(dir);
    if (fs::is_directory(root / "KernelBench" / "level1", ec)) root /= "KernelBench";
    ProblemNames out;
    bool anyLevel = false;
    for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (!it->is_directory(ec)) continue;
        const auto level = levelOf(it->path().filename().string());
        if (!level) continue;
        anyLevel = true;
        std::error_code ec2;
        for (auto f = fs::directory_iterator(it->path(), ec2); !ec2 && f != fs::directory_iterator(); f.increment(ec2)) {
            const fs::path& p = f->path();
            if (p.extension() != ".py") continue;
            const std::string stem = p.stem().string();
            std::int64_t id = 0;
            const auto [end, err] = std::from_chars(stem.data(), stem.data() + stem.size(), id);
            // "40_LayerNorm": a number, an underscore, a name.
            if (err != std::errc() || end == stem.data() + stem.size() || *end != '_') continue;
            out.m_names[{*level, id}] = stem;
        }
    }
    if (ec) return Status(ErrorCode::IoError, "cannot read the folder: " + ec.message(), SourcePosition{dir});
    if (!anyLevel)
        return Status(ErrorCode::NotFound, "no level1/, level2/, ... folder of KernelBench problems here",
            SourcePosition{dir});
    return out;
}

std::optional<std::string> ProblemNames::name(std::int64_t level, std::int64_t id) const
{
    const auto it = m_names.find({level, id});
    if (it == m_names.end()) return std::nullopt;
    return it->second;
}

std::size_t ProblemNames::applyTo(std::span<EvalRecord> records) const
{
    std::size_t named = 0;
    for (EvalRecord& r : records) {
        if (!r.problem.name.empty() || !r.problem.level || !r.problem.id) continue;
        if (!r.problem.suite.empty() && r.problem.suite != "KernelBench") continue;
        if (auto n = name(*r.problem.level, *r.problem.id)) {
            r.problem.name = std::move(*n);
            ++named;
        }
    }
    return named;
}

} // namespace kwb
