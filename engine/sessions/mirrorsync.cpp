#include "mirrorsync.h"

#include "worker.h"

#include "crypto/random.h"
#include "store/workspacestore.h"
#include "workspace/workspacemirror.h"

#include <QFile>

namespace isolation {

namespace {

QList<BundleRef> refsOf(const QMap<QString, QString> &map)
{
    QList<BundleRef> refs;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        refs.append({it.value().toLatin1(), it.key().toUtf8()});
    return refs;
}

} // namespace

MirrorSync::MirrorSync(Worker &worker, WorkspaceStore &store, WarmCache &cache, QObject *parent)
    : QObject(parent)
    , m_worker(worker)
    , m_store(store)
    , m_cache(cache)
{ }

void MirrorSync::run(const Manifest &manifest, const QByteArray &etag, Hook seed, Hook finish, Progress progress,
    std::function<void(Result<Stats, SessionError>)> done)
{
    m_manifest = manifest;
    m_etag = etag;
    m_seed = std::move(seed);
    m_finish = std::move(finish);
    m_progress = std::move(progress);
    m_done = std::move(done);
    plan();
}

void MirrorSync::fail(const SessionError &error)
{
    if (auto done = std::exchange(m_done, nullptr))
        done(error);
}

void MirrorSync::plan()
{
    if (m_progress)
        m_progress(QStringLiteral("plan"), 0, -1);
    WarmCache *cache = &m_cache;
    const QString workspaceId = m_manifest.workspaceId;
    const QList<ManifestSegment> segments = m_manifest.segments;
    m_worker.run<Result<QList<int>, SessionError>>(
        [cache, workspaceId, segments, seed = m_seed]() -> Result<QList<int>, SessionError> {
            auto lease = cache->lease(workspaceId);
            if (seed) {
                if (auto r = seed(*lease); !r)
                    return r.error();
            }
            auto mirror = lease->mirror();
            if (!mirror)
                return SessionError::from(mirror.error());
            // A segment whose tips the mirror has adds nothing: its objects came another way (an
            // earlier download, a session's own save) and every commit here has its history.
            QList<int> need;
            for (int i = 0; i < segments.size(); ++i) {
                auto has = mirror.value()->hasCommits(segments.at(i).refs.values());
                if (!has)
                    return SessionError::from(has.error());
                if (!has.value())
                    need.append(i);
            }
            return need;
        },
        this,
        [this](Result<QList<int>, SessionError> r) {
            if (!r) {
                fail(r.error());
                return;
            }
            m_need = r.value();
            m_next = 0;
            downloadNext();
        });
}

void MirrorSync::downloadNext()
{
    if (m_next >= m_need.size()) {
        finishUp();
        return;
    }
    const ManifestSegment segment = m_manifest.segments.at(m_need.at(m_next));
    // Unique: another session of this engine may be fetching the same segment at the same time.
    const QString path = m_cache.tempDir() + QStringLiteral("/segment-") + segment.id + QLatin1Char('-')
        + QString::fromLatin1(randomBytes(6).toHex()) + QStringLiteral(".bundle");
    if (m_progress)
        m_progress(QStringLiteral("download"), 0, segment.size);
    QPointer<MirrorSync> self(this);
    m_store.downloadSegment(
        segment, path,
        [self, segment, path](StoreResult<void> got) {
            if (!self)
                return;
            if (!got) {
                QFile::remove(path);
                self->fail(SessionError::from(got.error()));
                return;
            }
            ++self->m_stats.downloaded;
            self->m_stats.bytes += segment.size;
            if (self->m_progress)
                self->m_progress(QStringLiteral("apply"), 0, -1);
            WarmCache *cache = &self->m_cache;
            const QString workspaceId = self->m_manifest.workspaceId;
            // true: read in; false: an earlier segment is missing from the mirror.
            self->m_worker.run<Result<bool, SessionError>>(
                [cache, workspaceId, path]() -> Result<bool, SessionError> {
                    auto lease = cache->lease(workspaceId);
                    auto mirror = lease->mirror();
                    QFile file(path);
                    if (!mirror || !file.open(QIODevice::ReadOnly)) {
                        QFile::remove(path);
                        return mirror ? SessionError::failed(file.errorString()) : SessionError::from(mirror.error());
                    }
                    auto added = mirror.value()->addBundle(file);
                    file.close();
                    QFile::remove(path);
                    if (!added && added.error().code == WorkspaceError::Code::NotFound)
                        return false;
                    if (!added)
                        return SessionError::from(added.error());
                    return true;
                },
                self,
                [self](Result<bool, SessionError> r) {
                    if (!r) {
                        self->fail(r.error());
                        return;
                    }
                    if (!r.value()) {
                        // The mirror lost objects meanwhile (evicted or deleted): plan again, once.
                        if (self->m_retried) {
                            self->fail(SessionError::failed(tr("a segment of the workspace needs commits that "
                                                               "no earlier segment brings")));
                            return;
                        }
                        qCInfo(lcSessions) << "the cache of" << self->m_manifest.workspaceId
                                           << "changed during a sync; planning again";
                        self->m_retried = true;
                        self->plan();
                        return;
                    }
                    ++self->m_next;
                    self->downloadNext();
                });
        },
        [self, segment](qint64 done, qint64) {
            if (self && self->m_progress)
                self->m_progress(QStringLiteral("download"), done, segment.size);
        });
}

void MirrorSync::finishUp()
{
    if (m_progress)
        m_progress(QStringLiteral("update"), 0, -1);
    WarmCache *cache = &m_cache;
    m_worker.run<Result<void, SessionError>>(
        [cache, manifest = m_manifest, etag = m_etag, finish = m_finish]() -> Result<void, SessionError> {
            auto lease = cache->lease(manifest.workspaceId);
            auto mirror = lease->mirror();
            if (!mirror)
                return SessionError::from(mirror.error());
            // Another session of this engine may have taken the mirror further already.
            if (lease->accepts(manifest.generation)) {
                if (auto set = mirror.value()->setRefs(refsOf(manifest.refs)); !set)
                    return SessionError::from(set.error());
                lease->record(etag, manifest.generation);
            }
            if (finish)
                return finish(*lease);
            return {};
        },
        this,
        [this](Result<void, SessionError> r) {
            if (!r) {
                fail(r.error());
                return;
            }
            if (auto done = std::exchange(m_done, nullptr))
                done(m_stats);
        });
}

} // namespace isolation
