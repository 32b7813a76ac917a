#include "jobs/job_tracker.h"

#include "project/project_loader.h"

namespace kwb::ui {

JobTracker::JobTracker(QObject* parent, int progressIntervalMs)
    : QObject(parent)
{
    m_timer.setInterval(progressIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &JobTracker::relay);
}

JobTracker::~JobTracker()
{
    if (m_state) m_state->cancel.cancel();
}

std::shared_ptr<JobTracker::State> JobTracker::begin()
{
    if (m_state) m_state->cancel.cancel();
    m_state = std::make_shared<State>();
    ++m_generation;
    m_running = true;
    m_timer.start();
    Q_EMIT started();
    return m_state;
}

bool JobTracker::end(quint64 generation)
{
    if (generation != m_generation) return false;
    m_running = false;
    m_timer.stop();
    relay(); // the last report before the result, so a bar can reach 100%
    return true;
}

void JobTracker::supersede()
{
    if (m_state) m_state->cancel.cancel();
    m_state.reset();
    ++m_generation;
    m_running = false;
    m_timer.stop();
}

void JobTracker::cancel()
{
    if (m_state) m_state->cancel.cancel();
}

kwb::Progress JobTracker::latestProgress() const
{
    if (!m_state) return {};
    std::lock_guard lock(m_state->mutex);
    return m_state->latest;
}

void JobTracker::relay()
{
    if (!m_state) return;
    kwb::Progress p;
    {
        std::lock_guard lock(m_state->mutex);
        if (!m_state->fresh) return;
        m_state->fresh = false;
        p = m_state->latest;
    }
    Q_EMIT progress(QString::fromStdString(p.stage), p.done, p.total);
}

kwb::TaskContext JobTracker::contextFor(const std::shared_ptr<State>& state)
{
    kwb::TaskContext ctx;
    ctx.cancel = &state->cancel;
    // Latches only: the timer on the tracker's thread decides when it is shown.
    ctx.progress = [state](const kwb::Progress& p) {
        std::lock_guard lock(state->mutex);
        state->latest = p;
        state->fresh = true;
    };
    return ctx;
}

void JobTracker::lowerPriority()
{
    lowerCurrentThreadPriority();
}

} // namespace kwb::ui
