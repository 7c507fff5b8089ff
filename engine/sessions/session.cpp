#include "session.h"

#include "saveflow.h"
#include "sessionjson.h"
#include "sparepool.h"
#include "syncflow.h"

#include "cache/warmcache.h"
#include "store/workspacestore.h"
#include "workspace/objectlinker.h"
#include "workspace/workspace.h"
#include "workspace/workspacemirror.h"

#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcSessions, "isolation.sessions")

namespace isolation {

Session::Session(SessionRecord record, QString dir, WarmCache *cache, QObject *parent)
    : QObject(parent)
    , m_record(std::move(record))
    , m_dir(std::move(dir))
    , m_cache(cache)
    , m_worker(std::make_unique<Worker>())
{ }

Session::~Session()
{
    if (m_flow)
        m_flow->abort(SessionError::unavailable(tr("the engine is stopping")));
    // Work already handed to the worker finishes first; the repository is closed on its thread.
    m_worker->runAndWait([this] { m_workspace.reset(); });
    m_worker.reset();
}

QString Session::gitDir() const
{
    return m_dir + QStringLiteral("/git");
}

QString Session::workTree() const
{
    return m_dir + QStringLiteral("/workspace");
}

std::optional<SessionError> Session::unusable() const
{
    if (m_state == SessionState::Failed)
        return SessionError::failed(m_reason);
    if (m_state != SessionState::Opening && !QFileInfo(workTree()).isDir())
        return SessionError::worktreeMissing(
            tr("The worktree of session %1 is gone from the disk (%2). Restore it from the session branch "
               "with `isolation-server restore %1` (what was not saved is lost), or finish the session with "
               "`isolation-server finish %1 --discard`")
                .arg(id(), workTree()));
    return std::nullopt;
}

void Session::setStore(std::unique_ptr<WorkspaceStore> store)
{
    if (!store && m_flow)
        m_flow->abort(SessionError::notPaired(tr("This computer is no longer paired")));
    m_store = std::move(store);
}

void Session::setState(SessionState state, const QString &reason)
{
    if (m_state == SessionState::Failed && state != SessionState::Failed)
        return; // sticks: the repository could not be opened
    if (state == m_state && reason == m_reason)
        return;
    m_state = state;
    m_reason = reason;
    Q_EMIT changed();
}

void Session::setPhase(const QString &phase, qint64 bytes, qint64 total)
{
    if (phase != m_progress.phase && m_operationClock.isValid()) {
        const qint64 now = m_operationClock.elapsed();
        m_phaseMs.append({m_progress.phase.isEmpty() ? QStringLiteral("start") : m_progress.phase, now - m_phaseStartedMs});
        m_phaseStartedMs = now;
    }
    m_progress.phase = phase;
    m_progress.bytes = bytes;
    m_progress.totalBytes = total;
    m_progress.cancellable = m_flow && m_flow->cancellable();
    Q_EMIT changed();
}

Result<void, SessionError> Session::cancel()
{
    if ((!m_flow || !m_flow->cancellable()) && m_launchCancel) {
        if (!m_launchCancel())
            return SessionError::invalid(tr("The sandbox's launch can no longer be cancelled"));
        m_launchCancel = nullptr;
        return {};
    }
    if (!m_flow || !m_flow->cancellable())
        return SessionError::invalid(m_progress.operation.isEmpty()
                ? tr("Nothing to cancel: no operation runs")
                : tr("The %1 can no longer be cancelled: it is in its last step").arg(m_progress.operation));
    if (!m_flow->cancel())
        return SessionError::invalid(tr("The %1 can no longer be cancelled").arg(m_progress.operation));
    m_progress.cancellable = false;
    Q_EMIT changed();
    return {};
}

void Session::persist()
{
    m_record.state = sessionStateName(m_state);
    if (auto s = m_record.save(m_dir + QStringLiteral("/session.json")); !s)
        qCWarning(lcSessions) << "session" << id() << ":" << s.error().message;
}

void Session::enqueue(SessionState state, const QString &operation, Op op)
{
    m_queue.append({state, {operation, std::move(op)}});
    if (!m_running)
        next();
}

void Session::logTimes()
{
    if (!m_operationClock.isValid() || m_progress.operation.isEmpty())
        return;
    const qint64 total = m_operationClock.elapsed();
    m_phaseMs.append({m_progress.phase.isEmpty() ? QStringLiteral("start") : m_progress.phase, total - m_phaseStartedMs});
    QStringList parts;
    for (const auto &[phase, ms] : std::as_const(m_phaseMs))
        parts << QStringLiteral("%1 %2 ms").arg(phase).arg(ms);
    qCInfo(lcSessions).noquote() << QStringLiteral("%1 of %2 took %3 ms: %4")
                                        .arg(m_progress.operation, id())
                                        .arg(total)
                                        .arg(parts.join(QStringLiteral(", ")));
    m_operationClock.invalidate();
    m_phaseMs.clear();
}

void Session::next()
{
    logTimes();
    if (m_queue.isEmpty()) {
        m_running = false;
        m_progress = {};
        setState(SessionState::Ready);
        Q_EMIT changed();
        return;
    }
    m_running = true;
    auto [state, named] = m_queue.takeFirst();
    m_progress = SessionProgress {named.first, {}, 0, -1, QDateTime::currentDateTimeUtc()};
    m_operationClock.start();
    m_phaseStartedMs = 0;
    setState(state);
    Q_EMIT changed();
    named.second([this] { QMetaObject::invokeMethod(this, &Session::next, Qt::QueuedConnection); });
}

void Session::runFlow(SessionFlow *flow)
{
    m_flow = flow;
}

struct Session::Opened
{
    QByteArray etag; // from the warm cache, for a fresh session
    qint64 generation = 0;
    bool fromCache = false;
    bool fromSpare = false; // taken whole from the spare session (SparePool)
    LinkStats linked;
};

Result<Session::Opened, SessionError> Session::openRepository(bool fresh)
{
    // A directory the manager made from a spare: its branch becomes this session's.
    auto spare = SparePool::claim(m_dir, id());
    if (!spare)
        return SessionError::from(spare.error());
    // A session of an earlier run whose worktree was deleted meanwhile: opening makes the directory
    // again, empty, and a save would then publish every file as deleted. It is taken away again,
    // so the session says its worktree is gone (unusable()) until `restore` checks it out. (Not
    // left missing inside GitRepo::open: libgit2 refuses to open a repository whose core.worktree
    // does not exist, "failed to resolve path", so the directory must be there while it opens.)
    const bool vanished = !fresh && !spare.value() && !QFileInfo(workTree()).isDir();
    auto ws = Workspace::open(gitDir(), workTree(), id(), m_clock);
    if (!ws)
        return SessionError::from(ws.error());
    m_workspace = std::move(ws.value());
    if (vanished) {
        QDir().rmdir(workTree());
        qCWarning(lcSessions).noquote() << "session" << id() << ": its worktree is gone from the disk:" << workTree();
    }
    Opened opened;
    if (spare.value()) {
        // Checked out already, from the warm cache at this generation.
        opened.etag = spare.value()->etag;
        opened.generation = spare.value()->generation;
        opened.fromCache = opened.fromSpare = true;
        return opened;
    }
    if (!fresh)
        return opened;
    // The warm cache first: its objects linked in, its branches taken as the hub's.
    auto lease = m_cache->lease(workspaceId());
    const CacheEntry entry = lease->entry();
    if (entry.etag.isEmpty())
        return opened;
    auto mirror = lease->mirror();
    auto refs = mirror ? mirror.value()->refs() : Result<QList<BundleRef>, WorkspaceError>(mirror.error());
    auto linked
        = refs ? ObjectLinker::link(lease->gitDir(), gitDir()) : Result<LinkStats, WorkspaceError>(refs.error());
    auto adopted
        = linked ? m_workspace->adoptHubRefs(refs.value()) : Result<ApplyResult, WorkspaceError>(linked.error());
    if (!adopted) {
        // The cache is disposable: without it the hub has everything.
        qCWarning(lcSessions) << "warm cache of" << workspaceId() << "not used:" << adopted.error().message;
        return opened;
    }
    opened.etag = entry.etag;
    opened.generation = entry.generation;
    opened.fromCache = true;
    opened.linked = linked.value();
    return opened;
}

void Session::open(bool fresh, Done<void> done)
{
    enqueue(SessionState::Opening, QStringLiteral("open"), [this, fresh, done](std::function<void()> finished) {
        setPhase(fresh ? QStringLiteral("cache") : QStringLiteral("recover"));
        m_worker->run<Result<Opened, SessionError>>([this, fresh] { return openRepository(fresh); }, this,
            [this, fresh, done, finished](Result<Opened, SessionError> r) {
                if (!r) {
                    qCWarning(lcSessions) << "session" << id() << "cannot be opened:" << r.error().message;
                    setState(SessionState::Failed, r.error().message);
                    done(r.error());
                    finished();
                    return;
                }
                if (!fresh && !r.value().fromSpare) {
                    done({});
                    finished();
                    return;
                }
                if (r.value().fromCache) {
                    if (r.value().fromSpare)
                        qCInfo(lcSessions) << "session" << id() << "starts from the spare session (generation"
                                           << r.value().generation << ")";
                    else
                        qCInfo(lcSessions) << "session" << id() << "starts from the warm cache (generation"
                                           << r.value().generation << "," << r.value().linked.packs << "packs linked)";
                    m_record.etag = r.value().etag;
                    m_record.generation = r.value().generation;
                    persist();
                }
                auto *flow = new SyncFlow(*this, ConflictMode::Stop, this);
                if (fresh)
                    flow->allowCancel(tr("Start cancelled: the new session is removed"));
                runFlow(flow);
                flow->run([done, finished](Result<SyncReport, SessionError> synced) {
                    done(synced ? Result<void, SessionError>() : Result<void, SessionError>(synced.error()));
                    finished();
                });
            });
    });
}

void Session::setSandbox(const SandboxRecord &sandbox)
{
    if (m_record.sandbox && *m_record.sandbox == sandbox)
        return;
    m_record.sandbox = sandbox;
    persist();
    Q_EMIT changed();
}

void Session::close(std::function<void()> done)
{
    if (m_flow)
        m_flow->abort(SessionError::unavailable(tr("the session is finishing")));
    m_worker->run<bool>(
        [this] {
            m_workspace.reset();
            return true;
        },
        this, [done](bool) { done(); });
}

void Session::save(const QStringList &files, const QString &message, Done<SaveReport> done)
{
    if (message.toUtf8().size() > kMaxMessageBytes) {
        done(SessionError::invalid(tr("The save message is %1 bytes long; the limit is %2 bytes")
                                       .arg(message.toUtf8().size())
                                       .arg(kMaxMessageBytes)));
        return;
    }
    enqueue(SessionState::Saving, QStringLiteral("save"), [this, files, message, done](std::function<void()> finished) {
        if (auto e = unusable()) {
            done(*e);
            finished();
            return;
        }
        auto *flow = new SaveFlow(*this, files, message, false, this);
        runFlow(flow);
        flow->run([done, finished](Result<SaveReport, SessionError> r) {
            done(r);
            finished();
        });
    });
}

void Session::resumeInterrupted()
{
    if (!m_record.lastSync && !m_finishingStart && m_store) {
        // Its first sync never ended (every start ends with one, and a start that fails leaves
        // nothing): the engine was stopped while `session new` filled it. Filled now instead.
        m_finishingStart = true;
        qCInfo(lcSessions) << "session" << id() << ": finishing the start the engine was stopped in";
        enqueue(SessionState::Opening, QStringLiteral("open"), [this](std::function<void()> finished) {
            if (m_state == SessionState::Failed) {
                finished();
                return;
            }
            auto *flow = new SyncFlow(*this, ConflictMode::Stop, this);
            runFlow(flow);
            flow->run([this, finished](Result<SyncReport, SessionError> r) {
                // Once: a failure is the session's last sync now, and a `sync` finishes it later.
                qCInfo(lcSessions).noquote()
                    << "session" << id() << ": start" << (r ? QStringLiteral("finished") : r.error().message);
                finished();
            });
        });
    }
    if (!m_record.interrupted || m_resumed || !m_store)
        return;
    m_resumed = true;
    const SessionRecord::InterruptedSave again = *m_record.interrupted;
    qCInfo(lcSessions) << "session" << id() << ": running again the save the engine was stopped in";
    enqueue(SessionState::Saving, QStringLiteral("save"), [this, again](std::function<void()> finished) {
        if (m_state == SessionState::Failed) {
            finished();
            return;
        }
        if (auto e = unusable()) {
            // The worktree is gone: the save waits for `restore` (which runs it again), and the
            // log says why instead of libgit2's "failed to open directory".
            qCWarning(lcSessions).noquote() << "session" << id() << ": the save the engine was stopped in waits:" << e->message;
            m_resumed = false;
            finished();
            return;
        }
        auto *flow = new SaveFlow(*this, again.files, again.message, true, this);
        runFlow(flow);
        flow->run([this, finished](Result<SaveReport, SessionError> r) {
            qCInfo(lcSessions).noquote() << "session" << id() << ": resumed save"
                                         << (r ? QStringLiteral("done") : r.error().message);
            finished();
        });
    });
}

void Session::sync(ConflictMode mode, Done<SyncReport> done)
{
    enqueue(SessionState::Syncing, QStringLiteral("sync"), [this, mode, done](std::function<void()> finished) {
        if (auto e = unusable()) {
            done(*e);
            finished();
            return;
        }
        auto *flow = new SyncFlow(*this, mode, this);
        flow->allowCancel();
        runFlow(flow);
        flow->run([done, finished](Result<SyncReport, SessionError> r) {
            done(r);
            finished();
        });
    });
}

void Session::diff(const QString &path, Done<FileDiff> done)
{
    if (m_state == SessionState::Opening) {
        done(SessionError::unavailable(tr("The session is still opening")));
        return;
    }
    if (auto e = unusable()) {
        done(*e);
        return;
    }
    onWorker<Result<FileDiff, WorkspaceError>>([path](Workspace &ws) { return ws.diff(path); }, this,
        [done](Result<FileDiff, WorkspaceError> d) {
            if (!d)
                done(SessionError::from(d.error()));
            else
                done(d.value());
        });
}

void Session::restoreWorkTree(Done<void> done)
{
    enqueue(SessionState::Syncing, QStringLiteral("restore"), [this, done](std::function<void()> finished) {
        if (m_state == SessionState::Failed) {
            done(SessionError::failed(m_reason));
            finished();
            return;
        }
        if (QFileInfo(workTree()).isDir()) {
            done(SessionError::invalid(tr("The worktree of session %1 is there (%2): nothing to restore").arg(id(), workTree())));
            finished();
            return;
        }
        qCInfo(lcSessions) << "session" << id() << ": checking the session branch out again into" << workTree();
        onWorker<Result<void, WorkspaceError>>([](Workspace &ws) { return ws.restoreWorkTree(); }, this,
            [this, done, finished](Result<void, WorkspaceError> r) {
                if (r)
                    done({});
                else
                    done(SessionError::from(r.error()));
                finished();
                if (r)
                    resumeInterrupted(); // a save the engine was stopped in, waiting for the worktree
            });
    });
}

void Session::changes(bool refresh, Done<ChangesReport> done)
{
    enqueue(SessionState::Ready, QStringLiteral("changes"), [this, refresh, done](std::function<void()> finished) {
        if (auto e = unusable()) {
            done(*e);
            finished();
            return;
        }
        onWorker<Result<WorkspaceChanges, WorkspaceError>>([](Workspace &ws) { return ws.changes(); }, this,
            [this, refresh, done, finished](Result<WorkspaceChanges, WorkspaceError> c) {
                if (!c) {
                    done(SessionError::from(c.error()));
                    finished();
                    return;
                }
                ChangesReport report {c.value(), false, false, m_record.generation};
                if (!refresh) {
                    done(report);
                    finished();
                    return;
                }
                if (!m_store) {
                    done(SessionError::notPaired(tr("This computer is not paired: pair it to ask the hub")));
                    finished();
                    return;
                }
                setPhase(QStringLiteral("refresh"));
                QPointer<Session> self(this);
                m_store->fetchManifest(
                    m_record.etag, [self, report, done, finished](StoreResult<WorkspaceStore::Fetched> f) mutable {
                        if (!self)
                            return;
                        if (!f) {
                            done(SessionError::from(f.error()));
                            finished();
                            return;
                        }
                        report.refreshed = true;
                        // 304, or still no manifest at all where the session knows none either.
                        report.movedOn = f.value().moved && f.value().etag != self->m_record.etag;
                        done(report);
                        finished();
                    });
            });
    });
}

void Session::settlePending(Done<bool> done)
{
    if (!m_record.pending) {
        // A merge whose manifest never went out (killed before the upload ended): undo it.
        onWorker<Result<bool, WorkspaceError>>(
            [](Workspace &ws) -> Result<bool, WorkspaceError> {
                auto pending = ws.savePending();
                if (!pending || !pending.value())
                    return pending;
                if (auto undone = ws.undoMerge(); !undone)
                    return undone.error();
                return true;
            },
            this,
            [this, done](Result<bool, WorkspaceError> r) {
                if (!r) {
                    done(SessionError::from(r.error()));
                    return;
                }
                if (r.value())
                    qCInfo(lcSessions) << "session" << id() << ": undid the merge of a save that never reached the hub";
                done(false);
            });
        return;
    }
    if (!m_store) {
        done(SessionError::notPaired(tr("This computer is not paired: the last save cannot be settled")));
        return;
    }
    const SessionRecord::PendingPublish pending = *m_record.pending;
    setPhase(QStringLiteral("settle"));
    QPointer<Session> self(this);
    m_store->settle(pending.saveId, [self, pending, done](StoreResult<WorkspaceStore::Settlement> s) {
        if (!self)
            return;
        if (!s) {
            done(SessionError::unavailable(
                tr("The outcome of save %1 is not known yet (%2): it is settled before the next save or sync")
                    .arg(pending.saveId, s.error().message)));
            return;
        }
        const bool published = s.value().published;
        const bool ours = published && s.value().manifest && s.value().manifest->saveId == pending.saveId;
        const QByteArray etag = s.value().etag;
        self->onWorker<Result<void, WorkspaceError>>(
            [published, pending](Workspace &ws) {
                if (!published)
                    return ws.undoMerge();
                SegmentResult segment;
                segment.refs = pending.refs;
                return ws.markPublished(segment);
            },
            self,
            [self, published, ours, etag, pending, done](Result<void, WorkspaceError> r) {
                if (!r) {
                    done(SessionError::from(r.error()));
                    return;
                }
                qCInfo(lcSessions) << "session" << self->id() << ": save" << pending.saveId << "settled as"
                                   << (published ? "published" : "not published");
                if (ours) {
                    self->m_record.etag = etag;
                    self->m_record.generation = pending.generation;
                }
                self->m_record.pending.reset();
                self->persist();
                done(published);
            });
    });
}

} // namespace isolation
