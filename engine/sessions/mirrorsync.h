// Brings a workspace's mirror in the warm cache up to a manifest: the segments whose commits it
// lacks are downloaded, decrypted and read into it in manifest order (only those: a warm cache
// means only new segments travel), then its branches are set to the manifest's refs. A pipeline:
// each segment is decrypted and indexed on the worker while it downloads, and the next one
// downloads while one is read; at most kAhead segments are in flight, spooled on disk.
#pragma once

#include "sessionerror.h"

#include "cache/warmcache.h"
#include "core/result.h"
#include "store/manifest.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <memory>

namespace isolation {

class SegmentStream;
class Worker;
class WorkspaceStore;
struct StoreError;

class MirrorSync final : public QObject
{
    Q_OBJECT
public:
    // Runs on the worker with the mirror leased (its lock held).
    using Hook = std::function<Result<void, SessionError>(WarmCache::Lease &)>;
    using Progress = std::function<void(const QString &phase, qint64 bytes, qint64 total)>;
    struct Stats
    {
        int downloaded = 0; // segments downloaded
        qint64 bytes = 0; // their encrypted bytes
    };

    // `worker`, `store` and `cache` outlive this object.
    MirrorSync(Worker &worker, WorkspaceStore &store, WarmCache &cache, QObject *parent = nullptr);

    static constexpr int kAhead = 2; // segments in flight: one being read, the next arriving
    static constexpr int kProgressMs = 100;

    ~MirrorSync() override;

    // `seed` runs first (e.g. a session's objects linked into the mirror, so that it lacks less),
    // `finish` last, once the mirror holds everything `manifest` names. Either may be empty.
    void run(const Manifest &manifest, const QByteArray &etag, Hook seed, Hook finish, Progress progress,
        std::function<void(Result<Stats, SessionError>)> done);
    // Stops the downloads in flight at once (a worker waiting for their bytes gives up); `done`
    // is not called any more.
    void cancel();

private:
    void plan();
    void pump(); // starts the next download when there is room
    void applied(int round, Result<bool, SessionError> r);
    void finishUp();
    void fail(const SessionError &error);
    void stopStreams(const StoreError &why);

    Worker &m_worker;
    WorkspaceStore &m_store;
    WarmCache &m_cache;
    Manifest m_manifest;
    QByteArray m_etag;
    Hook m_seed;
    Hook m_finish;
    Progress m_progress;
    std::function<void(Result<Stats, SessionError>)> m_done;
    QList<int> m_need; // indexes into the manifest's segments
    int m_started = 0; // of m_need, downloads started
    int m_applied = 0; // of m_need, read into the mirror
    bool m_downloading = false;
    int m_round = 0; // a new plan ignores what the old one's worker tasks report
    QList<std::shared_ptr<SegmentStream>> m_streams; // started and not yet read in
    bool m_retried = false;
    Stats m_stats;
    QElapsedTimer m_reported; // the last download progress passed on
    QElapsedTimer m_took; // since the downloads began, for the log
    qint64 m_downloadsEnded = 0;
};

} // namespace isolation
