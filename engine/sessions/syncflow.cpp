#include "syncflow.h"

#include "crashpoint.h"
#include "mirrorsync.h"
#include "sessionjson.h"

#include "cache/warmcache.h"
#include "store/workspacestore.h"
#include "workspace/objectlinker.h"
#include "workspace/workspace.h"

#include <QPointer>

namespace isolation {

SyncFlow::SyncFlow(Session &session, ConflictMode mode, QObject *parent)
    : SessionFlow(parent)
    , m_session(session)
    , m_mode(mode)
{ }

void SyncFlow::run(Session::Done<SyncReport> done)
{
    m_done = std::move(done);
    if (!m_session.m_store) {
        finish(SessionError::notPaired(tr("This computer is not paired: pair it to sync with the hub")));
        return;
    }
    QPointer<SyncFlow> self(this);
    m_session.settlePending([self](Result<bool, SessionError> settled) {
        if (!self || self->stoppedByCancel())
            return;
        if (!settled) {
            self->finish(settled.error());
            return;
        }
        self->fetch();
    });
}

void SyncFlow::abort(const SessionError &why)
{
    // At once: the worker may be waiting for a segment's bytes, and the caller may wait for it.
    if (m_mirror)
        m_mirror->cancel();
    finish(why);
}

bool SyncFlow::cancellable() const
{
    return m_cancelAllowed && m_done && !m_merging && !m_cancelled;
}

bool SyncFlow::cancel()
{
    if (!cancellable())
        return false;
    m_cancelled = true;
    qCInfo(lcSessions) << (m_cancelOutcome.isEmpty() ? "sync of" : "start of") << m_session.id()
                       << "cancelled by the member";
    // Bringing the mirror up: stopped at once, as an abort does (the worker's tasks hold their own
    // lease of the cache). Settling a save or reading the manifest: taken when the answer comes
    // (a save being settled is not cut in the middle).
    if (m_mirror) {
        m_mirror->cancel();
        stoppedByCancel();
    }
    return true;
}

bool SyncFlow::stoppedByCancel()
{
    if (!m_cancelled)
        return false;
    finish(SessionError::cancelled(m_cancelOutcome.isEmpty()
            ? tr("Sync cancelled: the session's branch and files are as they were")
            : m_cancelOutcome));
    return true;
}

void SyncFlow::fetch()
{
    if (!m_session.m_store) {
        finish(SessionError::notPaired(tr("This computer is not paired")));
        return;
    }
    m_session.setPhase(QStringLiteral("fetch"));
    QPointer<SyncFlow> self(this);
    m_session.m_store->fetchManifest(m_session.m_record.etag, [self](StoreResult<WorkspaceStore::Fetched> f) {
        if (!self || !self->m_done || self->stoppedByCancel())
            return;
        if (!f) {
            self->finish(SessionError::from(f.error()));
            return;
        }
        const WorkspaceStore::Fetched &fetched = f.value();
        if (!fetched.moved || !fetched.manifest) {
            // 304, or the workspace has nothing saved yet: main is what the session has.
            self->mergeMain();
            return;
        }
        self->take(*fetched.manifest, fetched.etag);
    });
}

void SyncFlow::take(const Manifest &manifest, const QByteArray &etag)
{
    m_report.hubMoved = true;
    Session *session = &m_session;
    const QString sessionGitDir = m_session.gitDir();
    const QList<BundleRef> refs = bundleRefs(manifest.refs);
    // What the session has goes into the mirror first (it then lacks less), and the mirror's
    // objects into the session last, before the session takes the hub's branches.
    MirrorSync::Hook seed
        = [sessionGitDir, mark = &m_session.m_cacheLink](WarmCache::Lease &lease) -> Result<void, SessionError> {
        if (auto linked = ObjectLinker::linkSince(sessionGitDir, lease.gitDir(), lease.instanceId(), *mark); !linked)
            return SessionError::from(linked.error());
        return {};
    };
    MirrorSync::Hook finishHook = [session, sessionGitDir, refs, name = m_session.workspaceName()](
                                      WarmCache::Lease &lease) -> Result<void, SessionError> {
        lease.setName(name);
        if (auto linked = ObjectLinker::link(lease.gitDir(), sessionGitDir); !linked)
            return SessionError::from(linked.error());
        if (auto adopted = session->m_workspace->adoptHubRefs(refs); !adopted)
            return SessionError::from(adopted.error());
        return {};
    };
    auto *mirror = new MirrorSync(*m_session.m_worker, *m_session.m_store, *m_session.m_cache, this);
    m_mirror = mirror;
    QPointer<SyncFlow> self(this);
    mirror->run(
        manifest, etag, seed, finishHook,
        [self](const QString &phase, qint64 bytes, qint64 total) {
            if (self)
                self->m_session.setPhase(phase, bytes, total);
        },
        [self, mirror, etag, generation = manifest.generation](Result<MirrorSync::Stats, SessionError> r) {
            mirror->deleteLater();
            if (!self || !self->m_done)
                return;
            if (!r && r.error().code == SessionError::Code::NotFound && self->m_refetches < kMaxManifestRefetches) {
                // Another engine compacted the chain after we read the manifest: its segments are
                // gone, the new manifest names the full one. Read it again.
                ++self->m_refetches;
                qCInfo(lcSessions) << "a segment went away while syncing (compacted): reading the manifest again";
                self->fetch();
                return;
            }
            if (!r) {
                self->finish(r.error());
                return;
            }
            self->m_report.segmentsDownloaded = r.value().downloaded;
            self->m_report.bytesDownloaded = r.value().bytes;
            self->m_session.m_record.etag = etag;
            self->m_session.m_record.generation = generation;
            self->m_session.persist();
            self->mergeMain();
        });
}

void SyncFlow::mergeMain()
{
    if (stoppedByCancel())
        return;
    m_merging = true; // the phase below then says it is no longer cancellable
    m_session.setPhase(QStringLiteral("merge"));
    const ConflictMode mode = m_mode;
    QPointer<SyncFlow> self(this);
    // On the worker: the session outlives it (its destructor joins the worker first).
    Session *session = &m_session;
    CheckoutProgress progress = [session](qint64 bytes, qint64 total) {
        if (bytes > 0 && bytes < total)
            testhook::crashPoint("mid-checkout");
        QMetaObject::invokeMethod(
            session, [session, bytes, total] { session->setPhase(QStringLiteral("checkout"), bytes, total); },
            Qt::QueuedConnection);
    };
    m_session.onWorker<Result<std::pair<SyncResult, QByteArray>, WorkspaceError>>(
        [mode, progress](Workspace &ws) -> Result<std::pair<SyncResult, QByteArray>, WorkspaceError> {
            auto merged = ws.mergeMainIntoSession(mode, progress);
            if (!merged)
                return merged.error();
            auto main = ws.refId("main");
            if (!main)
                return main.error();
            return std::make_pair(merged.value(), main.value());
        },
        this,
        [self](Result<std::pair<SyncResult, QByteArray>, WorkspaceError> r) {
            if (!self || !self->m_done)
                return;
            if (!r) {
                self->finish(SessionError::from(r.error()));
                return;
            }
            const SyncResult &result = r.value().first;
            SyncReport &report = self->m_report;
            report.outcome = result.outcome;
            report.conflicts = result.conflicts;
            report.session = result.session;
            report.main = r.value().second;
            report.generation = self->m_session.m_record.generation;
            if (result.outcome == SyncOutcome::Conflicted) {
                self->finish(SessionError::conflict(
                    tr("%n file(s) conflict with main; nothing was changed (sync --resolve leaves git's markers "
                       "in the files)",
                        nullptr, int(result.conflicts.size())),
                    result.conflicts));
                return;
            }
            self->finish(report);
        });
}

void SyncFlow::finish(Result<SyncReport, SessionError> result)
{
    auto done = std::exchange(m_done, nullptr);
    if (!done)
        return;
    m_session.m_record.lastSync = LastSync {QDateTime::currentDateTimeUtc(), result};
    m_session.persist();
    done(result);
    deleteLater();
}

} // namespace isolation
