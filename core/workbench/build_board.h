#pragma once
// Where kwb verify's GPU loop learns that a sample's build has ended, so the
// GPU verifies the first samples while the build pool still compiles the
// rest (on the H200 machine the leaderboard's builds take about as long as
// its GPU work: run one after the other they double the batch).
//
// Thread: publish()/close() from the build thread, wait() from the GPU loop.
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/progress.h"
#include "workbench/build_pool.h"

namespace kwb::workbench {

class BuildBoard {
public:
    // The keys the pool will build; wait() on any other key returns at once.
    void expect(const std::vector<std::string>& keys);
    void publish(const std::string& key, const SampleBuild& build);
    // The pool has ended (finished, failed to start or cancelled): nobody waits any more.
    void close();
    // Blocks until `key`'s build has ended, the pool closed, or `cancel` is set.
    // nullopt: no build of this key is known (not expected, or never built).
    std::optional<SampleBuild> wait(const std::string& key, const CancelFlag* cancel = nullptr);

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::set<std::string> m_expected;
    std::map<std::string, SampleBuild> m_done;
    bool m_closed = false;
};

} // namespace kwb::workbench
