// A one-thread executor: tasks run in order on one thread that lives as long as the Worker, and
// their results come back on the thread of a context object. A session's libgit2 objects live on
// its worker, so the GUI thread never waits on git, crypto or disk.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <QThreadPool>

#include <functional>

namespace isolation {

class Worker final
{
public:
    Worker()
    {
        m_pool.setMaxThreadCount(1);
        m_pool.setExpiryTimeout(-1); // one thread for good: the same thread always
    }
    ~Worker() { m_pool.waitForDone(); }
    Worker(const Worker &) = delete;
    Worker &operator=(const Worker &) = delete;

    // Runs `task` on the worker, then `then` with its result on `context`'s thread (not at all
    // when `context` is gone by then).
    template<typename T>
    void run(std::function<T()> task, QObject *context, std::function<void(T)> then)
    {
        auto *watcher = new QFutureWatcher<T>(context);
        QObject::connect(watcher, &QFutureWatcherBase::finished, context, [watcher, then = std::move(then)] {
            watcher->deleteLater();
            then(watcher->result());
        });
        watcher->setFuture(QtConcurrent::run(&m_pool, std::move(task)));
    }

    // Runs `task` on the worker and waits for it (teardown only).
    void runAndWait(std::function<void()> task) { QtConcurrent::run(&m_pool, std::move(task)).waitForFinished(); }

private:
    QThreadPool m_pool;
};

} // namespace isolation
