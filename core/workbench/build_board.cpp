#include "workbench/build_board.h"

#include <chrono>

namespace kwb::workbench {

void BuildBoard::expect(const std::vector<std::string>& keys)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_expected.insert(keys.begin(), keys.end());
}

void BuildBoard::publish(const std::string& key, const SampleBuild& build)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_done[key] = build;
    }
    m_changed.notify_all();
}

void BuildBoard::close()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_closed = true;
    }
    m_changed.notify_all();
}

std::optional<SampleBuild> BuildBoard::wait(const std::string& key, const CancelFlag* cancel)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (!m_expected.count(key)) return std::nullopt;
    for (;;) {
        auto it = m_done.find(key);
        if (it != m_done.end()) return it->second;
        if (m_closed || (cancel && cancel->isCancelled())) return std::nullopt;
        // Cancellation has no notifier of its own: look again every 100 ms.
        m_changed.wait_for(lock, std::chrono::milliseconds(100));
    }
}

} // namespace kwb::workbench
