// cache: the warm cache — one bare repository (a WorkspaceMirror) per workspace under
// CACHE/workspaces/<id>.git, listed in CACHE/workspaces/cache.json (the manifest it mirrors, size,
// last use), evicted least recently used past a size cap. Disposable: deleting any of it loses
// nothing, because sessions keep their own copies of the objects. Thread-safe.
#pragma once

#include "core/result.h"
#include "workspace/workspaceerror.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMap>
#include <QMutex>
#include <QSet>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace isolation {

class WorkspaceMirror;

struct CacheEntry
{
    QString workspaceId;
    QString name; // the workspace's name, for people
    QByteArray etag; // the manifest whose refs the mirror's branches are (empty: none yet)
    qint64 generation = 0; // that manifest's generation
    qint64 bytes = 0; // files of the mirror (hard-linked files counted in full)
    QDateTime lastUsed;
    bool inUse = false; // a lease holds it now
};

class WarmCache
{
public:
    static constexpr qint64 kDefaultMaxBytes = qint64(10) << 30; // 10 GiB

    // Mirrors live in `cacheDir`/workspaces; `maxBytes` caps their total. The mirror used last is
    // never evicted by the cap (with a cap of 0 the cache keeps exactly that one).
    explicit WarmCache(QString cacheDir, qint64 maxBytes = kDefaultMaxBytes);
    ~WarmCache();
    WarmCache(const WarmCache &) = delete;
    WarmCache &operator=(const WarmCache &) = delete;

    // Who holds a lease. A session's operation is a use: it orders the mirrors for the cap, and
    // evict/clear leave the mirror alone while it lasts ("in use"). The engine's own work ahead of
    // time (a spare session being built) is not: it leaves the last use as it was, the mirror is
    // not shown in use, and an eviction asked for meanwhile is carried out when the lease ends.
    enum class Use { Session, Background };

    // Exclusive use of one workspace's mirror, and a pin against eviction, until destroyed.
    // Destroying it records the size and the use, then evicts others past the cap.
    class Lease
    {
    public:
        ~Lease();
        Lease(const Lease &) = delete;
        Lease &operator=(const Lease &) = delete;

        QString workspaceId() const { return m_id; }
        QString gitDir() const;
        // The mirror, opened (and created) on first use.
        Result<WorkspaceMirror *, WorkspaceError> mirror();
        CacheEntry entry() const;
        // The mirror's branches are now those of this manifest. Only a generation newer than (or
        // the same as) the one recorded is taken; returns whether it was.
        bool record(const QByteArray &etag, qint64 generation);
        // Whether `generation` would be taken by record().
        bool accepts(qint64 generation) const;
        void setName(const QString &name);
        // An id of this mirror as made: a new one whenever the mirror is made anew (after an
        // eviction, a clear, or its directory deleted), for LinkMark. Empty when it cannot be
        // read or written (then nothing is assumed about the mirror's contents).
        QString instanceId();
        // What the holder added to the mirror, when it knows exactly (the files an ObjectLinker
        // placed; a ref file or two more are not counted): the end of the lease then adds it to
        // the recorded size instead of reading the size of every file of the mirror. Without it
        // (or when no size was recorded before), the end of the lease measures the mirror.
        void grew(qint64 bytes);

    private:
        friend class WarmCache;
        Lease(WarmCache *cache, QString id, std::shared_ptr<QMutex> lock, Use use);
        WarmCache *m_cache;
        QString m_id;
        Use m_use;
        std::shared_ptr<QMutex> m_lock;
        std::unique_ptr<WorkspaceMirror> m_mirror;
        qint64 m_bytesBefore = 0; // the size recorded when the lease began (0: not known)
        std::optional<qint64> m_growth;
    };

    // Blocks until the workspace's mirror is free: call it on worker threads only.
    std::unique_ptr<Lease> lease(const QString &workspaceId, Use use = Use::Session);

    // The bytes of every file under `dir` (hard-linked files counted in full).
    static qint64 directorySize(const QString &dir);
    // A workspace id as the hub makes them (safe as a file name).
    static bool isWorkspaceId(const QString &id);

    QString directory() const { return m_dir; }
    QString tempDir() const; // CACHE/tmp: files on their way (segments, bundles)
    qint64 maxBytes() const;
    void setMaxBytes(qint64 maxBytes);
    // Every cached workspace, most recently used first.
    QList<CacheEntry> list() const;
    qint64 totalBytes() const;
    // Deletes one workspace's mirror. NotFound when it is not cached; Unavailable while a session's
    // operation uses it. Held by background work, it leaves the list now and its files go when
    // that work ends.
    Status evict(const QString &workspaceId);
    // Deletes every mirror no session's operation uses (as evict does); returns the ids kept.
    QStringList clear();
    // Evicts the least recently used mirrors no session's operation uses (never the one used last;
    // one background work holds goes when that work ends) until the total fits the cap; the ids
    // evicted.
    QStringList enforceLimit();
    // Called (with the cache's lock held: keep it short, never call back into the cache) whenever a
    // workspace leaves the cache — evicted, cleared or past the cap — for what is kept beside it.
    void setOnRemoved(std::function<void(const QString &workspaceId)> onRemoved) { m_onRemoved = std::move(onRemoved); }

private:
    void load();
    void save(); // with m_mutex held
    // A lease ends; `bytes`: the mirror's size when the lease knows it (else it is measured).
    void release(const QString &workspaceId, std::optional<qint64> bytes, Use use);
    bool remove(const QString &workspaceId); // with m_mutex held and the workspace not in use
    // With m_mutex held: removes the workspace now when its lock is free, or marks it to go when the
    // background lease holding it ends. Unavailable while a session's operation holds it.
    Status evictLocked(const QString &workspaceId);
    QString mirrorDir(const QString &workspaceId) const;

    QString m_root;
    QString m_dir;
    mutable QMutex m_mutex;
    qint64 m_maxBytes;
    QMap<QString, CacheEntry> m_entries;
    QHash<QString, std::shared_ptr<QMutex>> m_locks;
    QSet<QString> m_background; // held by a background lease now
    QSet<QString> m_evictAtRelease; // evicted while a background lease held them: gone at its end
    std::function<void(const QString &)> m_onRemoved;
};

} // namespace isolation
