#include "mirrorsync.h"

#include "crashpoint.h"
#include "worker.h"

#include "store/workspacestore.h"
#include "workspace/workspacemirror.h"

#include <QIODevice>

namespace isolation {

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

MirrorSync::~MirrorSync()
{
    stopStreams(StoreError::local(QStringLiteral("the sync stopped")));
}

void MirrorSync::cancel()
{
    m_done = nullptr;
    stopStreams(StoreError::local(QStringLiteral("the sync stopped")));
}

void MirrorSync::stopStreams(const StoreError &why)
{
    for (const std::shared_ptr<SegmentStream> &stream : std::exchange(m_streams, {}))
        stream->cancel(why);
}

void MirrorSync::fail(const SessionError &error)
{
    stopStreams(StoreError::local(QStringLiteral("the sync failed")));
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
    const int round = m_round;
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
        [this, round](Result<QList<int>, SessionError> r) {
            if (round != m_round || !m_done)
                return;
            if (!r) {
                fail(r.error());
                return;
            }
            m_need = r.value();
            m_started = m_applied = 0;
            m_downloading = false;
            m_took.start();
            if (m_need.isEmpty())
                finishUp();
            else
                pump();
        });
}

void MirrorSync::pump()
{
    if (!m_done || m_downloading || m_started >= m_need.size() || m_started - m_applied >= kAhead)
        return;
    const ManifestSegment segment = m_manifest.segments.at(m_need.at(m_started));
    ++m_started;
    m_downloading = true;
    m_reported.start();
    if (m_progress)
        m_progress(QStringLiteral("download"), 0, segment.size);
    QPointer<MirrorSync> self(this);
    const int round = m_round;
    auto stream = m_store.streamSegment(
        segment,
        [self, segment, round](StoreResult<void> got) {
            if (!self || round != self->m_round)
                return;
            self->m_downloading = false;
            self->m_downloadsEnded = self->m_took.elapsed();
            // A download that failed is reported by its reader, in manifest order; nothing more
            // starts meanwhile.
            if (!got)
                return;
            ++self->m_stats.downloaded;
            self->m_stats.bytes += segment.size;
            if (self->m_progress && self->m_started == self->m_need.size())
                self->m_progress(QStringLiteral("apply"), 0, -1);
            self->pump();
        },
        [self, segment](qint64 done, qint64) {
            if (done > 0 && done < segment.size)
                testhook::crashPoint("mid-download");
            // Every piece that arrives calls here: the session hears of it at most every kProgressMs.
            if (self && self->m_progress && (done >= segment.size || self->m_reported.elapsed() >= kProgressMs)) {
                self->m_reported.restart();
                self->m_progress(QStringLiteral("download"), done, segment.size);
            }
        });
    if (!stream) {
        m_downloading = false;
        fail(SessionError::from(stream.error()));
        return;
    }
    m_streams.append(stream.value());
    WarmCache *cache = &m_cache;
    const QString workspaceId = m_manifest.workspaceId;
    // Read in on the worker as it arrives. true: read in; false: an earlier segment is missing
    // from the mirror. Tasks run in order, so segments go in in manifest order.
    m_worker.run<Result<bool, SessionError>>(
        [cache, workspaceId, stream = stream.value()]() -> Result<bool, SessionError> {
            auto lease = cache->lease(workspaceId);
            auto mirror = lease->mirror();
            if (!mirror) {
                stream->cancel(StoreError::local(QStringLiteral("the cache cannot take the segment")));
                return SessionError::from(mirror.error());
            }
            const std::unique_ptr<QIODevice> reader = stream->openReader();
            auto added = mirror.value()->addBundle(*reader);
            if (added)
                return true;
            // The download or the segment's own check failing says more than what it did to the
            // bundle reader; otherwise the rest of the download is not wanted.
            if (auto e = stream->error())
                return SessionError::from(*e);
            stream->cancel(StoreError::local(QStringLiteral("the segment was refused")));
            if (added.error().code == WorkspaceError::Code::NotFound)
                return false;
            return SessionError::from(added.error());
        },
        this, [this, round](Result<bool, SessionError> r) { applied(round, std::move(r)); });
}

void MirrorSync::applied(int round, Result<bool, SessionError> r)
{
    if (round != m_round || !m_done)
        return;
    if (!r) {
        fail(r.error());
        return;
    }
    if (!r.value()) {
        // The mirror lost objects meanwhile (evicted or deleted): plan again, once.
        if (m_retried) {
            fail(SessionError::failed(tr("a segment of the workspace needs commits that no earlier segment brings")));
            return;
        }
        qCInfo(lcSessions) << "the cache of" << m_manifest.workspaceId << "changed during a sync; planning again";
        m_retried = true;
        ++m_round;
        stopStreams(StoreError::local(QStringLiteral("the sync plans again")));
        plan();
        return;
    }
    if (!m_streams.isEmpty())
        m_streams.removeFirst();
    if (++m_applied == m_need.size()) {
        qCInfo(lcSessions) << "cache of" << m_manifest.workspaceId << ":" << m_applied << "segment(s)," << m_stats.bytes
                           << "bytes, read in after" << m_took.elapsed() << "ms (downloaded after" << m_downloadsEnded
                           << "ms)";
        finishUp();
    } else
        pump();
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
                if (auto set = mirror.value()->setRefs(bundleRefs(manifest.refs)); !set)
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
