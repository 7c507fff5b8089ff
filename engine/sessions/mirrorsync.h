// Brings a workspace's mirror in the warm cache up to a manifest: the segments whose commits it
// lacks are downloaded, decrypted and read into it in manifest order (only those: a warm cache
// means only new segments travel), then its branches are set to the manifest's refs.
#pragma once

#include "sessionerror.h"

#include "cache/warmcache.h"
#include "core/result.h"
#include "store/manifest.h"

#include <QObject>

#include <functional>

namespace isolation {

class Worker;
class WorkspaceStore;

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

    // `seed` runs first (e.g. a session's objects linked into the mirror, so that it lacks less),
    // `finish` last, once the mirror holds everything `manifest` names. Either may be empty.
    void run(const Manifest &manifest, const QByteArray &etag, Hook seed, Hook finish, Progress progress,
        std::function<void(Result<Stats, SessionError>)> done);

private:
    void plan();
    void downloadNext();
    void finishUp();
    void fail(const SessionError &error);

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
    int m_next = 0;
    bool m_retried = false;
    Stats m_stats;
};

} // namespace isolation
