#include "saveflow.h"

#include "crashpoint.h"
#include "sessionjson.h"

#include "cache/warmcache.h"
#include "crypto/random.h"
#include "workspace/objectlinker.h"
#include "workspace/workspace.h"
#include "workspace/workspacemirror.h"

#include <QDir>
#include <QFile>
#include <QPointer>
#include <QScopeGuard>

#include <cerrno>

namespace isolation {

namespace {

QMap<QString, QString> branchesOf(const QList<BundleRef> &refs)
{
    QMap<QString, QString> map;
    for (const BundleRef &r : refs) {
        if (r.name != "HEAD")
            map.insert(QString::fromUtf8(r.name), QString::fromLatin1(r.id));
    }
    return map;
}

// Hard-links the session's objects added since `mark` into the lease's mirror and tells the lease
// how much it grew. A failure costs a download later, nothing more: false, after a warning.
bool linkObjects(WarmCache::Lease &lease, const QString &sessionGitDir, LinkMark &mark)
{
    auto r = ObjectLinker::linkSince(sessionGitDir, lease.gitDir(), lease.instanceId(), mark);
    if (!r) {
        qCWarning(lcSessions) << "warm cache not updated:" << r.error().message;
        return false;
    }
    lease.grew(r.value().bytes);
    return true;
}

} // namespace

SaveFlow::SaveFlow(Session &session, QStringList files, QString message, bool resumed, QObject *parent)
    : SessionFlow(parent)
    , m_session(session)
    , m_files(std::move(files))
    , m_message(std::move(message))
{
    m_report.files = m_files;
    m_report.resumed = resumed;
}

SaveFlow::~SaveFlow()
{
    if (!m_segmentFile.isEmpty())
        QFile::remove(m_segmentFile);
}

void SaveFlow::run(Session::Done<SaveReport> done)
{
    m_done = std::move(done);
    if (!m_session.m_store) {
        finish(SessionError::notPaired(tr("This computer is not paired: pair it to save to the hub")));
        return;
    }
    // Run again at the next start if the engine stops before this save ends.
    m_session.m_record.interrupted = SessionRecord::InterruptedSave {m_files, m_message};
    m_session.persist();
    const QString pendingId = m_session.m_record.pending ? m_session.m_record.pending->saveId : QString();
    QPointer<SaveFlow> self(this);
    m_session.settlePending([self, pendingId](Result<bool, SessionError> settled) {
        if (!self || !self->m_done)
            return;
        if (!settled) {
            self->finish(settled.error());
            return;
        }
        if (settled.value()) {
            self->m_settledPublished = true;
            self->m_report.saveId = pendingId;
        }
        self->commit();
    });
}

void SaveFlow::abort(const SessionError &why)
{
    // The engine stops or was unpaired: the record keeps what the next start needs (the save to
    // run again, the publish to settle), so it is not touched here.
    if (auto done = std::exchange(m_done, nullptr))
        done(why);
    deleteLater();
}

bool SaveFlow::cancellable() const
{
    return m_done && !m_publishing && !m_cancel->load();
}

bool SaveFlow::cancel()
{
    if (!cancellable())
        return false;
    // Taken at the next step's start, or by the segment's writer as it goes.
    m_cancel->store(true);
    qCInfo(lcSessions) << "save of" << m_session.id() << "cancelled by the member";
    return true;
}

bool SaveFlow::stoppedByCancel(bool merged)
{
    if (!m_cancel->load())
        return false;
    const SessionError why = SessionError::cancelled(merged
            ? tr("Save cancelled: nothing was published; the merge into main is undone, the work stays on the "
                 "session branch")
            : tr("Save cancelled: nothing was published; the work stays on the session"));
    if (merged)
        notPublished(why);
    else
        finish(why);
    return true;
}

void SaveFlow::commit()
{
    if (stoppedByCancel(false))
        return;
    m_session.setPhase(QStringLiteral("commit"));
    const QStringList files = m_files;
    const QString message = m_message;
    QPointer<SaveFlow> self(this);
    m_session.onWorker<Result<std::pair<CommitResult, QByteArray>, WorkspaceError>>(
        [files, message](Workspace &ws) -> Result<std::pair<CommitResult, QByteArray>, WorkspaceError> {
            auto c = ws.commit(files, message);
            if (!c)
                return c.error();
            auto main = ws.refId("main");
            if (!main)
                return main.error();
            return std::make_pair(c.value(), main.value());
        },
        this,
        [self](Result<std::pair<CommitResult, QByteArray>, WorkspaceError> r) {
            if (!self || !self->m_done)
                return;
            if (!r) {
                self->finish(SessionError::from(r.error()));
                return;
            }
            testhook::crashPoint("after-commit");
            if (self->stoppedByCancel(false))
                return;
            const CommitResult &c = r.value().first;
            self->m_report.committed = c.created;
            self->m_report.completedMerge = c.completedMerge;
            self->m_report.commit = c.commit;
            if (self->m_settledPublished && !c.created) {
                // What this save was to publish reached the hub before the engine was stopped.
                self->m_report.published = true;
                self->m_report.settled = true;
                self->m_report.main = r.value().second;
                self->m_report.generation = self->m_session.m_record.generation;
                self->finish(self->m_report);
                return;
            }
            self->checkBase();
        });
}

void SaveFlow::checkBase()
{
    WorkspaceStore *store = m_session.m_store.get();
    const QByteArray remembered = m_session.m_record.etag;
    if (store->lastSeenGeneration() > m_session.m_record.generation) {
        // Another session of this engine published since this one last synced: nothing to upload.
        finish(
            SessionError::movedOn(tr("The workspace moved on since this session last synced: sync, then save again")));
        return;
    }
    if (store->current() && !remembered.isEmpty() && store->currentEtag() == remembered) {
        m_base = *store->current();
        merge();
        return;
    }
    // The manifest the session knows is needed to build on; reading it also tells early when the
    // workspace moved on (nothing merged, nothing uploaded then).
    m_session.setPhase(QStringLiteral("check"));
    QPointer<SaveFlow> self(this);
    store->fetchManifest({}, [self, remembered](StoreResult<WorkspaceStore::Fetched> f) {
        if (!self || !self->m_done)
            return;
        if (!f) {
            self->finish(SessionError::from(f.error()));
            return;
        }
        if (f.value().etag != remembered) {
            self->finish(SessionError::movedOn(
                tr("The workspace moved on since this session last synced: sync, then save again")));
            return;
        }
        if (f.value().manifest) {
            self->m_base = *f.value().manifest;
        } else {
            self->m_base = Manifest();
            self->m_base.workspaceId = self->m_session.workspaceId();
        }
        self->merge();
    });
}

void SaveFlow::merge()
{
    if (stoppedByCancel(false))
        return;
    m_session.setPhase(QStringLiteral("merge"));
    QPointer<SaveFlow> self(this);
    m_session.onWorker<Result<MergeResult, WorkspaceError>>([](Workspace &ws) { return ws.mergeIntoMain(); }, this,
        [self](Result<MergeResult, WorkspaceError> r) {
            if (!self || !self->m_done)
                return;
            if (!r) {
                self->finish(r.error().code == WorkspaceError::Code::Conflict ? SessionError::conflict(
                                 tr("main and this session conflict: sync first (%1)").arg(r.error().message))
                                                                              : SessionError::from(r.error()));
                return;
            }
            testhook::crashPoint("after-merge");
            self->m_report.main = r.value().main;
            if (self->stoppedByCancel(true))
                return;
            self->writeSegment();
        });
}

void SaveFlow::writeSegment()
{
    m_at = m_base.nextSegmentAt();
    m_kind = m_at == 0 ? SegmentKind::Full : SegmentKind::Thin;
    QList<QByteArray> over;
    if (m_at > 0 && m_at < m_base.segments.size()) {
        for (const QString &tip : m_base.tipsBefore(m_at))
            over.append(tip.toLatin1());
    }
    const QString dir = m_session.m_cache->tempDir();
    if (!QDir().mkpath(dir)) {
        notPublished(SessionError::failed(tr("cannot create %1").arg(dir)));
        return;
    }
    m_segmentFile
        = dir + QStringLiteral("/save-") + QString::fromLatin1(randomBytes(8).toHex()) + QStringLiteral(".bundle");
    m_session.setPhase(QStringLiteral("segment"));
    const QString path = m_segmentFile;
    const SegmentKind kind = m_kind;
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancel;
    QPointer<SaveFlow> self(this);
    m_session.onWorker<Result<SegmentResult, WorkspaceError>>(
        [path, kind, over, cancel](Workspace &ws) -> Result<SegmentResult, WorkspaceError> {
            ws.setCancel(cancel.get());
            auto clear = qScopeGuard([&ws] { ws.setCancel(nullptr); });
            QFile out(path);
            if (!out.open(QIODevice::WriteOnly))
                return WorkspaceError::failed(writeFailureText(path, out.errorString(), errno));
            auto written = ws.writeSegment(out, kind, over);
            if (!written && written.error().code == WorkspaceError::Code::NotFound && !over.isEmpty()) {
                // The roll-up's base is not here: a full bundle replaces the chain instead.
                qCWarning(lcSessions) << "no roll-up:" << written.error().message << "- writing a full segment";
                if (!out.resize(0) || !out.seek(0))
                    return WorkspaceError::failed(writeFailureText(path, out.errorString(), errno));
                written = ws.writeSegment(out, SegmentKind::Full);
            }
            if (written && !out.flush())
                return WorkspaceError::failed(writeFailureText(path, out.errorString(), errno));
            if (!written && written.error().code != WorkspaceError::Code::Storage
                && storageFaultAt(path) != StorageFault::None)
                return WorkspaceError::failed(writeFailureText(path, written.error().message));
            return written;
        },
        this,
        [self](Result<SegmentResult, WorkspaceError> r) {
            if (!self || !self->m_done)
                return;
            if (self->stoppedByCancel(true))
                return;
            if (!r) {
                self->notPublished(SessionError::from(r.error()));
                return;
            }
            if (!r.value().written) {
                // Nothing new: the hub already has main and every branch as they are here.
                self->m_report.published = self->m_settledPublished;
                self->m_report.settled = self->m_settledPublished;
                self->m_report.generation = self->m_session.m_record.generation;
                self->finish(self->m_report);
                return;
            }
            self->m_segment = r.value();
            if (self->m_kind == SegmentKind::Thin && self->m_at < self->m_base.segments.size()
                && r.value().prerequisites.isEmpty()) {
                self->m_kind = SegmentKind::Full; // the roll-up fell back to a full bundle
                self->m_at = 0;
            }
            self->m_report.compacted = self->m_at < self->m_base.segments.size();
            self->upload();
        });
}

void SaveFlow::upload()
{
    m_session.setPhase(QStringLiteral("upload"), 0, -1);
    linkIntoCache();
    QStringList prerequisites;
    for (const QByteArray &p : std::as_const(m_segment.prerequisites))
        prerequisites.append(QString::fromLatin1(p));
    QPointer<SaveFlow> self(this);
    m_session.m_store->uploadSegment(
        m_segmentFile, m_kind == SegmentKind::Full ? ManifestSegment::Kind::Full : ManifestSegment::Kind::Thin,
        branchesOf(m_segment.refs), prerequisites,
        [self](StoreResult<ManifestSegment> uploaded) {
            if (!self || !self->m_done)
                return;
            QFile::remove(self->m_segmentFile);
            self->m_segmentFile.clear();
            if (!uploaded) {
                self->notPublished(SessionError::from(uploaded.error()));
                return;
            }
            Session &session = self->m_session;
            self->m_uploaded = uploaded.value();
            self->m_report.segmentBytes = uploaded.value().size;
            if (self->stoppedByCancel(true)) // the segment goes again: no manifest names it
                return;
            Manifest next = self->m_base.successor(Manifest::newSaveId());
            next.workspaceId = session.workspaceId();
            next.segments = self->m_base.segments.mid(0, self->m_at);
            next.segments.append(uploaded.value());
            next.refs = uploaded.value().refs;
            self->m_next = next;
            if (next.generation <= session.m_store->lastSeenGeneration()) {
                // Another session of this engine already published a newer manifest.
                self->notPublished(SessionError::movedOn(tr("The workspace moved on: sync, then save again")));
                return;
            }
            session.m_record.pending
                = SessionRecord::PendingPublish {next.saveId, next.generation, self->m_segment.refs};
            session.persist();
            testhook::crashPoint("after-segment");
            self->publish(false);
        },
        [self](qint64 sent, qint64 total) {
            if (!self)
                return;
            self->m_session.setPhase(QStringLiteral("upload"), sent, total);
            if (sent > 0 && sent < total)
                testhook::crashPoint("mid-upload");
        });
}

// The warm cache takes the session's new objects while the segment travels (the worker is idle
// then): only the objects added since this session's last link go in, so a one-file save costs what
// it changed. Until the save is published nothing in the mirror names them; published() moves the
// mirror's refs. A failure costs a download later, nothing more.
void SaveFlow::linkIntoCache()
{
    WarmCache *cache = m_session.m_cache;
    const QString sessionGitDir = m_session.gitDir();
    const QString workspaceId = m_session.workspaceId();
    const QString name = m_session.workspaceName();
    LinkMark *mark = &m_session.m_cacheLink;
    m_session.onWorker<bool>(
        [cache, sessionGitDir, workspaceId, name, mark, linked = m_linked](Workspace &) {
            auto lease = cache->lease(workspaceId);
            lease->setName(name);
            *linked = linkObjects(*lease, sessionGitDir, *mark);
            return linked->value();
        },
        this, [](bool) {});
}

void SaveFlow::publish(bool retry)
{
    m_publishing = true; // the point of no return: the hub may take it from now on
    m_session.setPhase(QStringLiteral("publish"));
    WorkspaceStore *store = m_session.m_store.get();
    const QString saveId = m_next.saveId;
    QPointer<SaveFlow> self(this);
    auto settle = [self, saveId, retry] {
        self->m_session.setPhase(QStringLiteral("settle"));
        self->m_session.m_store->settle(saveId, [self, saveId, retry](StoreResult<WorkspaceStore::Settlement> s) {
            if (!self || !self->m_done)
                return;
            if (!s) {
                // Not known, and not to be guessed: the pending record settles it later.
                self->finish(SessionError::unavailable(
                    tr("The hub did not confirm the save and cannot be asked now (%1); it is settled before the "
                       "next save or sync")
                        .arg(s.error().message)));
                return;
            }
            self->m_report.settled = true;
            if (s.value().published) {
                self->published(s.value().etag, s.value().manifest && s.value().manifest->saveId == saveId);
                return;
            }
            if (!retry && s.value().etag == self->m_session.m_record.etag) {
                self->publish(true); // it never arrived and nothing moved: send it again, once
                return;
            }
            self->notPublished(SessionError::movedOn(tr("The workspace moved on: sync, then save again")));
        });
    };
    store->publish(m_next, m_session.m_record.etag, [self, settle, saveId](StoreResult<WorkspaceStore::Publication> p) {
        if (!self || !self->m_done)
            return;
        if (!p) {
            if (p.error().retryable()) {
                settle(); // the hub may have failed after storing it: read it back
                return;
            }
            self->notPublished(SessionError::from(p.error()));
            return;
        }
        switch (p.value().outcome) {
        case PublishOutcome::Published: {
            WorkspaceStore *s = self->m_session.m_store.get();
            const bool ours = s->current() && s->current()->saveId == saveId && s->currentEtag() == p.value().etag;
            testhook::crashPoint("after-manifest");
            self->published(p.value().etag, ours);
            return;
        }
        case PublishOutcome::MovedOn:
            self->notPublished(SessionError::movedOn(
                tr("Another save reached the hub first: nothing was written; sync, then save again")));
            return;
        case PublishOutcome::Unknown:
            settle();
            return;
        }
    });
}

void SaveFlow::published(const QByteArray &etag, bool ours)
{
    m_session.setPhase(QStringLiteral("finish"));
    const SegmentResult segment = m_segment;
    const Manifest next = m_next;
    const QString sessionGitDir = m_session.gitDir();
    WarmCache *cache = m_session.m_cache;
    const QString name = m_session.workspaceName();
    LinkMark *mark = &m_session.m_cacheLink;
    QPointer<SaveFlow> self(this);
    m_session.onWorker<Result<void, WorkspaceError>>(
        [segment, next, etag, ours, sessionGitDir, cache, name, mark, early = m_linked](
            Workspace &ws) -> Result<void, WorkspaceError> {
            if (auto marked = ws.markPublished(segment); !marked)
                return marked;
            // The warm cache took the objects during the upload (linkIntoCache()); a save found
            // published when the engine started again did not upload, and links them now.
            auto lease = cache->lease(next.workspaceId);
            lease->setName(name);
            bool linked = early->value_or(false);
            if (linked)
                lease->grew(0); // its size already counts the objects (else the lease measures it)
            if (!early->has_value())
                linked = linkObjects(*lease, sessionGitDir, *mark);
            if (!linked)
                return {}; // the mirror may lack objects the refs name: left as it was
            auto mirror = lease->mirror();
            if (mirror && ours && lease->accepts(next.generation)) {
                if (auto set = mirror.value()->setRefs(bundleRefs(next.refs)); set)
                    lease->record(etag, next.generation);
                else
                    qCWarning(lcSessions) << "warm cache not updated:" << set.error().message;
            } else if (!mirror) {
                qCWarning(lcSessions) << "warm cache not updated:" << mirror.error().message;
            }
            return {};
        },
        this,
        [self, etag, ours](Result<void, WorkspaceError> r) {
            if (!self || !self->m_done)
                return;
            Session &session = self->m_session;
            if (!r) {
                // Published, but not recorded here: the pending record settles it next time.
                self->finish(SessionError::from(r.error()));
                return;
            }
            if (ours) {
                session.m_record.etag = etag;
                session.m_record.generation = self->m_next.generation;
            }
            session.m_record.pending.reset();
            self->m_report.published = true;
            self->m_report.saveId = self->m_next.saveId;
            self->m_report.generation = self->m_next.generation;
            self->finish(self->m_report);
        });
}

void SaveFlow::notPublished(const SessionError &why)
{
    m_session.setPhase(QStringLiteral("undo"));
    // A segment uploaded for a manifest that was never published is named by nothing: remove it.
    if (!m_uploaded.name.isEmpty() && m_session.m_store)
        m_session.m_store->deleteSegments({m_uploaded.name});
    QPointer<SaveFlow> self(this);
    m_session.onWorker<Result<void, WorkspaceError>>([](Workspace &ws) { return ws.undoMerge(); }, this,
        [self, why](Result<void, WorkspaceError> r) {
            if (!self || !self->m_done)
                return;
            if (!r) {
                self->finish(SessionError::from(r.error()));
                return;
            }
            self->m_session.m_record.pending.reset();
            self->finish(why);
        });
}

void SaveFlow::finish(Result<SaveReport, SessionError> result)
{
    auto done = std::exchange(m_done, nullptr);
    if (!done)
        return;
    Session &session = m_session;
    session.m_record.interrupted.reset();
    session.m_record.lastSave = LastSave {QDateTime::currentDateTimeUtc(), result};
    session.persist();
    done(result);
    deleteLater();
}

} // namespace isolation
