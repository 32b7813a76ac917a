#include "workbench/spec_index.h"

#include <algorithm>
#include <filesystem>

#include "base/mapped_file.h"

namespace kwb::workbench {

namespace fs = std::filesystem;

namespace {

std::string normalised(const std::string& path)
{
    std::error_code ec;
    const fs::path abs = fs::absolute(path, ec);
    return (ec ? fs::path(path) : abs).lexically_normal().string();
}

} // namespace

// Parses one spec file into `specs` and `byId`, once per file; a file that
// fails is kept as an issue. The first of two equal ids wins, as in a search.
template <typename Spec, typename Load>
void SpecIndex::addFile(const std::string& path, Load&& load, std::vector<std::unique_ptr<Spec>>& specs,
    std::map<std::string, const Spec*, std::less<>>& byId)
{
    const std::string key = normalised(path);
    if (std::find(m_files.begin(), m_files.end(), key) != m_files.end()) return;
    m_files.push_back(key);
    auto spec = load(path);
    if (!spec) {
        m_issues.push_back(spec.status());
        return;
    }
    auto owned = std::make_unique<Spec>(std::move(spec).value());
    if (owned->specPath.empty()) owned->specPath = path;
    byId.emplace(owned->id, owned.get());
    specs.push_back(std::move(owned));
}

void SpecIndex::addProblemFile(const std::string& path)
{
    addFile(path, [](const std::string& p) { return loadProblemSpec(p); }, m_problems, m_problemById);
}

void SpecIndex::addCandidateFile(const std::string& path)
{
    addFile(path, [](const std::string& p) { return loadCandidateSpec(p); }, m_candidates, m_candidateById);
}

void SpecIndex::addDirectory(const std::string& dir)
{
    const std::string key = normalised(dir);
    if (hasDirectory(key)) return;
    m_dirs.push_back(key);
    std::error_code ec;
    std::vector<std::string> files;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path().string());
    }
    std::sort(files.begin(), files.end()); // directory order is not stable across file systems
    for (const auto& f : files) {
        auto text = readFileContents(f);
        if (!text) continue;
        // The schema tag decides; other JSON (records, projects) is not a spec.
        if (text->find(kProblemSchema) != std::string::npos) addProblemFile(f);
        else if (text->find(kCandidateSchema) != std::string::npos) addCandidateFile(f);
    }
}

bool SpecIndex::hasDirectory(const std::string& dir) const
{
    const std::string key = normalised(dir);
    return std::find(m_dirs.begin(), m_dirs.end(), key) != m_dirs.end();
}

const ProblemSpec* SpecIndex::problem(std::string_view id) const
{
    auto it = m_problemById.find(id);
    return it == m_problemById.end() ? nullptr : it->second;
}

const CandidateSpec* SpecIndex::candidate(std::string_view id) const
{
    auto it = m_candidateById.find(id);
    return it == m_candidateById.end() ? nullptr : it->second;
}

std::vector<const CandidateSpec*> SpecIndex::candidatesWithSourceName(std::string_view fileName) const
{
    std::vector<const CandidateSpec*> out;
    if (fileName.empty()) return out;
    for (const auto& c : m_candidates)
        if (!c->sourceFile.empty() && fs::path(c->sourceFile).filename() == fileName) out.push_back(c.get());
    return out;
}

} // namespace kwb::workbench
