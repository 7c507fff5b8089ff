// sessions: one session — a worktree on branch session/<id> of a workspace, its record in
// DATA/sessions/<id>/session.json, and its operations (open, save, sync, changes) run one at a time
// as state machines: git work on the session's own worker thread, the hub on the event loop.
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "core/sessionlimits.h"
#include "sessionerror.h"
#include "sessionrecord.h"
#include "sessionreports.h"
#include "sessionstate.h"
#include "worker.h"
#include "workspace/filediff.h"
#include "workspace/objectlinker.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>
#include <optional>

namespace isolation {

class SessionFlow;
class WarmCache;
class Workspace;
class WorkspaceStore;

class Session final : public QObject
{
    Q_OBJECT
public:
    template<typename T>
    using Done = std::function<void(Result<T, SessionError>)>;

    // `dir` is DATA/sessions/<id> (git/, workspace/ and session.json in it). `cache` outlives the session.
    Session(SessionRecord record, QString dir, WarmCache *cache, QObject *parent = nullptr);
    ~Session() override;

    QString id() const { return m_record.id; }
    QString workspaceId() const { return m_record.workspaceId; }
    QString workspaceName() const { return m_record.workspaceName; }
    QString directory() const { return m_dir; }
    QString gitDir() const;
    QString workTree() const;
    const SessionRecord &record() const { return m_record; }
    SessionState state() const { return m_state; }
    QString reason() const { return m_reason; } // why Failed
    // Why an operation cannot run now: the session failed, or its worktree is gone from the disk.
    std::optional<SessionError> unusable() const;
    SessionProgress progress() const { return m_progress; }
    int queued() const { return int(m_queue.size()); } // operations waiting behind the running one

    // The hub's store for this session's workspace; null while not paired (operations that need
    // the hub then fail with NotPaired, and one running is stopped with it). Takes ownership.
    void setStore(std::unique_ptr<WorkspaceStore> store);
    WorkspaceStore *store() const { return m_store.get(); }

    // Opens the repository, recovering what a kill left. A `fresh` session is then filled: from
    // the warm cache first, then the segments the hub has beyond it, and its files checked out.
    void open(bool fresh, Done<void> done);
    // Saves `files` (worktree-relative; empty: every change) with `message` (at most
    // kMaxMessageBytes of UTF-8: longer is refused as Invalid).
    void save(const QStringList &files, const QString &message, Done<SaveReport> done);
    static constexpr qsizetype kMaxMessageBytes = isolation::kMaxSaveMessageBytes;
    // Checks the session branch out again into a worktree that was deleted from the disk (what
    // was not saved on the branch is gone with it). Invalid while the worktree is there.
    void restoreWorkTree(Done<void> done);
    void sync(ConflictMode mode, Done<SyncReport> done);
    // Asks the running save, sync or start to stop and undo what it did (it then ends Cancelled),
    // or else the launch of the session's sandbox (setLaunchCancel). Invalid when nothing that can
    // be cancelled runs: no operation, or one past its point of no return (a save's manifest on its
    // way to the hub, a sync's merge into the session, a start's checkout).
    Result<void, SessionError> cancel();
    // While the session's sandbox is launched: how Cancel stops that launch (true: it will end
    // Cancelled). Set and cleared by whoever launches it; null: no launch to stop.
    void setLaunchCancel(std::function<bool()> cancel) { m_launchCancel = std::move(cancel); }
    void changes(bool refresh, Done<ChangesReport> done);
    // One file's diff against the session branch (on the worker; not queued behind operations,
    // it only reads).
    void diff(const QString &path, Done<FileDiff> done);
    // Runs again a save the engine was stopped in the middle of (recorded in session.json), once;
    // and first finishes a start (`session new`) the engine was stopped in: its first sync.
    void resumeInterrupted();
    // What the sandbox side records about this session's sandbox (kept in session.json).
    void setSandbox(const SandboxRecord &sandbox);
    // Stops what runs and closes the repository (on its worker), then `done` on this thread.
    void close(std::function<void()> done);

Q_SIGNALS:
    void changed(); // state, record or progress moved

private:
    friend class SaveFlow;
    friend class SyncFlow;

    using Op = std::function<void(std::function<void()> finished)>;
    void enqueue(SessionState state, const QString &operation, Op op);
    // open()'s part on the worker: the repository opened (a spare claimed; a fresh one filled from
    // the warm cache, when it has the workspace).
    struct Opened;
    Result<Opened, SessionError> openRepository(bool fresh);
    void next();
    void setState(SessionState state, const QString &reason = {});
    void setPhase(const QString &phase, qint64 bytes = 0, qint64 total = -1);
    void persist();
    // Settles a save whose outcome was left open (a kill, a lost answer): published → finished,
    // not published → main's merge undone. Also undoes a merge whose manifest never went out.
    void settlePending(Done<bool> done); // true: a save left open was found published
    // Runs `task` with the Workspace on the worker; `then` on this thread.
    template<typename T>
    void onWorker(std::function<T(Workspace &)> task, QObject *context, std::function<void(T)> then);
    void runFlow(SessionFlow *flow);

    SessionRecord m_record;
    QString m_dir;
    WarmCache *m_cache;
    SystemClock m_clock;
    std::unique_ptr<Worker> m_worker;
    std::unique_ptr<Workspace> m_workspace; // touched on the worker only
    // How far this session's objects are in the warm cache's mirror, so a save links only the
    // objects it added (ObjectLinker::linkSince). Touched on the worker only.
    LinkMark m_cacheLink;
    std::unique_ptr<WorkspaceStore> m_store;
    SessionState m_state = SessionState::Opening;
    QString m_reason;
    SessionProgress m_progress;
    // Where the running operation's time goes, phase by phase: logged when it ends (engine.log,
    // "save of S took 136 ms: commit 41 ms, ..."; bench/workspace reads it).
    QElapsedTimer m_operationClock;
    qint64 m_phaseStartedMs = 0;
    QList<std::pair<QString, qint64>> m_phaseMs;
    void logTimes();
    QList<std::pair<SessionState, std::pair<QString, Op>>> m_queue;
    bool m_running = false;
    QPointer<SessionFlow> m_flow; // the save or sync running, stopped when the store goes
    std::function<bool()> m_launchCancel;
    bool m_resumed = false;
    bool m_finishingStart = false; // a start the engine was stopped in was taken up again
};

} // namespace isolation

namespace isolation {

template<typename T>
void Session::onWorker(std::function<T(Workspace &)> task, QObject *context, std::function<void(T)> then)
{
    m_worker->run<T>([this, task = std::move(task)] { return task(*m_workspace); }, context, std::move(then));
}

} // namespace isolation
