#pragma once
// Every problem and candidate spec a project (or a `kwb verify` run) knows,
// parsed once. The window builds one per loaded project on its loading
// thread; `kwb verify` builds one from --problems and the dataset. Lookups
// are const and thread-safe; building is not.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "problems/candidate_spec.h"
#include "problems/problem_spec.h"

namespace kwb::workbench {

class SpecIndex {
public:
    // Parses one spec file (kwb.problem/1 or kwb.candidate/1, told apart by its
    // schema); a file that fails is kept as an issue, not added.
    void addProblemFile(const std::string& path);
    void addCandidateFile(const std::string& path);
    // Every *.json spec under `dir`, recursively; other JSON files are ignored.
    void addDirectory(const std::string& dir);
    // Directories already scanned (absolute, normalised), so that a resolver
    // can add a candidate's sibling folders once.
    bool hasDirectory(const std::string& dir) const;

    const ProblemSpec* problem(std::string_view id) const;
    const CandidateSpec* candidate(std::string_view id) const;
    // Candidates whose source file has this file name (not path): how a record
    // that names only "softmax_partial.cu" finds its spec.
    std::vector<const CandidateSpec*> candidatesWithSourceName(std::string_view fileName) const;

    std::size_t problemCount() const { return m_problems.size(); }
    std::size_t candidateCount() const { return m_candidates.size(); }
    const std::vector<Status>& issues() const { return m_issues; }

private:
    template <typename Spec, typename Load>
    void addFile(const std::string& path, Load&& load, std::vector<std::unique_ptr<Spec>>& specs,
        std::map<std::string, const Spec*, std::less<>>& byId);

    std::vector<std::unique_ptr<ProblemSpec>> m_problems;
    std::vector<std::unique_ptr<CandidateSpec>> m_candidates;
    std::map<std::string, const ProblemSpec*, std::less<>> m_problemById;
    std::map<std::string, const CandidateSpec*, std::less<>> m_candidateById;
    std::vector<std::string> m_dirs;
    std::vector<std::string> m_files;
    std::vector<Status> m_issues;
};

} // namespace kwb::workbench
