#pragma once
// Progress and cancellation for long loops. The callback may be invoked from
// any thread that runs the loop; throttling is the receiver's business.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace kwb {

struct Progress {
    std::string stage;
    std::int64_t done = 0;
    std::int64_t total = 0; // 0 = unknown
};

using ProgressFn = std::function<void(const Progress&)>;

// Shared between the caller (which may set it) and the loop (which polls it).
class CancelFlag {
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_cancelled.load(std::memory_order_relaxed); }
    void reset() { m_cancelled.store(false, std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled{false};
};

struct TaskContext {
    ProgressFn progress;
    const CancelFlag* cancel = nullptr;

    bool cancelled() const { return cancel && cancel->isCancelled(); }
    void report(const std::string& stage, std::int64_t done, std::int64_t total) const
    {
        if (progress) progress(Progress{stage, done, total});
    }
};

} // namespace kwb
