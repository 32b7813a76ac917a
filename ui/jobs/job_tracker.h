#pragma once
// One background job slot: the generation-id pattern and the progress relay
// that the window, the views and the models share instead of writing their own.
//
//   m_jobs.start([inputs](const kwb::TaskContext& ctx) { return compute(inputs, ctx); },
//                [this](Result r) { show(std::move(r)); });
//
// - start() runs `work` on the global thread pool (at lowered priority) and
//   `done` on the tracker's thread with the result, unless a newer start() or
//   supersede() came in between: then the old job's cancel flag is raised and
//   its result is dropped (done is never called for it).
// - `work` reports through ctx.progress from any thread; the tracker keeps only
//   the latest report and emits progress() on its own thread at most once per
//   interval (100 ms: ~10 updates a second) and once before done() runs.
// - cancel() raises the current job's flag; its result is still delivered, so
//   the caller sees what a cancelled load kept (its own cancelled marker).
//
// Thread: create and call on one thread (the GUI thread); `work` must not
// touch widgets. Ownership: `work` and `done` are moved into the job.
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "base/progress.h"

namespace kwb::ui {

class JobTracker : public QObject {
    Q_OBJECT
public:
    explicit JobTracker(QObject* parent = nullptr, int progressIntervalMs = 100);
    ~JobTracker() override;

    template <typename Work, typename Done>
    quint64 start(Work work, Done done);

    // Drops the running job's result (and raises its flag) without starting a
    // new one: for callers that computed the answer synchronously instead.
    void supersede();
    // Raises the running job's cancel flag; the job still finishes and delivers.
    void cancel();

    bool isRunning() const { return m_running; }
    // Runs the jobs on this pool instead of the global one: long jobs (the
    // statistics' bootstrap) must not queue the short ones (filters, sorts, loads).
    void setPool(QThreadPool* pool) { m_pool = pool; }
    quint64 generation() const { return m_generation; }
    // Latest progress the running job reported (stage empty when none).
    kwb::Progress latestProgress() const;

Q_SIGNALS:
    void started();
    void progress(const QString& stage, qint64 done, qint64 total);
    // After done() ran for the current job (not for superseded ones).
    void finished();

private:
    struct State {
        kwb::CancelFlag cancel;
        mutable std::mutex mutex;
        kwb::Progress latest;
        bool fresh = false;
    };
    std::shared_ptr<State> begin();
    bool end(quint64 generation);
    void relay();
    static kwb::TaskContext contextFor(const std::shared_ptr<State>& state);
    static void lowerPriority();

    std::shared_ptr<State> m_state;
    quint64 m_generation = 0;
    bool m_running = false;
    QTimer m_timer;
    QThreadPool* m_pool = nullptr;
};

template <typename Work, typename Done>
quint64 JobTracker::start(Work work, Done done)
{
    using Result = std::invoke_result_t<Work&, const kwb::TaskContext&>;
    static_assert(!std::is_void_v<Result>, "a job returns its result; done() receives it");
    std::shared_ptr<State> state = begin();
    const quint64 generation = m_generation;
    QThreadPool* pool = m_pool ? m_pool : QThreadPool::globalInstance();
    QtConcurrent::run(pool, [state, work = std::move(work)]() mutable -> Result {
        lowerPriority();
        return work(contextFor(state));
    }).then(this, [this, generation, done = std::move(done)](Result result) mutable {
        if (!end(generation)) return; // superseded: a newer job owns the slot
        done(std::move(result));
        Q_EMIT finished();
    });
    return generation;
}

} // namespace kwb::ui
