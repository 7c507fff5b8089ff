#include "warmcache.h"

#include "core/storagefault.h"

#include "workspace/workspacemirror.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSaveFile>

#include <algorithm>

Q_LOGGING_CATEGORY(lcCache, "isolation.cache")

namespace isolation {

bool WarmCache::isWorkspaceId(const QString &id)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_-]{1,128}$"));
    return pattern.match(id).hasMatch();
}

qint64 WarmCache::directorySize(const QString &dir)
{
    qint64 total = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        total += it.fileInfo().size();
    }
    return total;
}

WarmCache::WarmCache(QString cacheDir, qint64 maxBytes)
    : m_root(std::move(cacheDir))
    , m_dir(m_root + QStringLiteral("/workspaces"))
    , m_maxBytes(maxBytes)
{
    load();
}

WarmCache::~WarmCache() = default;

QString WarmCache::tempDir() const
{
    return m_root + QStringLiteral("/tmp");
}

QString WarmCache::mirrorDir(const QString &workspaceId) const
{
    return m_dir + QLatin1Char('/') + workspaceId + QStringLiteral(".git");
}

qint64 WarmCache::maxBytes() const
{
    QMutexLocker lock(&m_mutex);
    return m_maxBytes;
}

void WarmCache::setMaxBytes(qint64 maxBytes)
{
    {
        QMutexLocker lock(&m_mutex);
        m_maxBytes = std::max<qint64>(0, maxBytes);
    }
    enforceLimit();
}

void WarmCache::load()
{
    QFile file(m_dir + QStringLiteral("/cache.json"));
    if (file.open(QIODevice::ReadOnly)) {
        const QJsonArray list
            = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("workspaces")).toArray();
        for (const QJsonValue v : list) {
            const QJsonObject o = v.toObject();
            CacheEntry e;
            e.workspaceId = o.value(QStringLiteral("id")).toString();
            if (!isWorkspaceId(e.workspaceId) || !QFileInfo::exists(mirrorDir(e.workspaceId) + QStringLiteral("/HEAD")))
                continue;
            e.name = o.value(QStringLiteral("name")).toString();
            e.etag = o.value(QStringLiteral("etag")).toString().toLatin1();
            e.generation = o.value(QStringLiteral("generation")).toInteger();
            e.bytes = o.value(QStringLiteral("bytes")).toInteger();
            e.lastUsed = QDateTime::fromString(o.value(QStringLiteral("lastUsed")).toString(), Qt::ISODateWithMs);
            m_entries.insert(e.workspaceId, e);
        }
    }
    // Mirrors the list does not know (a crash before it was written) still count against the cap.
    const QStringList dirs = QDir(m_dir).entryList({QStringLiteral("*.git")}, QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &d : dirs) {
        const QString id = d.chopped(4);
        if (m_entries.contains(id) || !isWorkspaceId(id))
            continue;
        CacheEntry e;
        e.workspaceId = id;
        e.bytes = directorySize(mirrorDir(id));
        e.lastUsed = QFileInfo(mirrorDir(id)).lastModified().toUTC();
        m_entries.insert(id, e);
    }
}

void WarmCache::save()
{
    QJsonArray list;
    for (const CacheEntry &e : std::as_const(m_entries)) {
        list.append(QJsonObject {{QStringLiteral("id"), e.workspaceId}, {QStringLiteral("name"), e.name},
            {QStringLiteral("etag"), QString::fromLatin1(e.etag)}, {QStringLiteral("generation"), e.generation},
            {QStringLiteral("bytes"), e.bytes},
            {QStringLiteral("lastUsed"), e.lastUsed.toUTC().toString(Qt::ISODateWithMs)}});
    }
    if (!QDir().mkpath(m_dir)) {
        qCWarning(lcCache) << "cannot create" << m_dir;
        return;
    }
    QSaveFile file(m_dir + QStringLiteral("/cache.json"));
    if (!file.open(QIODevice::WriteOnly)
        || file.write(QJsonDocument(QJsonObject {{QStringLiteral("workspaces"), list}}).toJson()) < 0 || !file.commit())
        qCWarning(lcCache).noquote() << "cannot write the cache list:" << writeFailureText(file.fileName(), file.errorString());
}

std::unique_ptr<WarmCache::Lease> WarmCache::lease(const QString &workspaceId, Use use)
{
    std::shared_ptr<QMutex> lock;
    {
        QMutexLocker guard(&m_mutex);
        auto &slot = m_locks[workspaceId];
        if (!slot)
            slot = std::make_shared<QMutex>();
        lock = slot;
    }
    lock->lock();
    qint64 bytes = 0;
    {
        QMutexLocker guard(&m_mutex);
        CacheEntry &e = m_entries[workspaceId];
        e.workspaceId = workspaceId;
        if (use == Use::Session) {
            e.inUse = true;
            e.lastUsed = QDateTime::currentDateTimeUtc();
        } else {
            m_background.insert(workspaceId);
        }
        // Deleted from outside since: it mirrors nothing any more.
        if (!QFileInfo::exists(mirrorDir(workspaceId) + QStringLiteral("/HEAD"))) {
            e.etag.clear();
            e.generation = 0;
            e.bytes = 0;
        }
        bytes = e.bytes;
    }
    std::unique_ptr<Lease> lease(new Lease(this, workspaceId, std::move(lock), use));
    lease->m_bytesBefore = bytes;
    return lease;
}

void WarmCache::release(const QString &workspaceId, std::optional<qint64> known, Use use)
{
    const QString dir = mirrorDir(workspaceId);
    {
        QMutexLocker guard(&m_mutex);
        m_background.remove(workspaceId);
        if (m_evictAtRelease.remove(workspaceId)) {
            const bool removed = remove(workspaceId);
            save();
            qCInfo(lcCache) << "evicted" << workspaceId << (removed ? "(its background work ended)" : "- not deleted");
            return;
        }
    }
    const bool exists = QFileInfo::exists(dir + QStringLiteral("/HEAD"));
    const qint64 bytes = !exists ? 0 : known ? *known : directorySize(dir);
    QMutexLocker guard(&m_mutex);
    if (!exists) {
        m_entries.remove(workspaceId);
    } else {
        CacheEntry &e = m_entries[workspaceId];
        e.bytes = bytes;
        if (use == Use::Session || !e.lastUsed.isValid())
            e.lastUsed = QDateTime::currentDateTimeUtc();
        if (use == Use::Session)
            e.inUse = false;
    }
    save();
}

bool WarmCache::remove(const QString &workspaceId)
{
    const bool removed = QDir(mirrorDir(workspaceId)).removeRecursively();
    if (removed) {
        m_entries.remove(workspaceId);
        if (m_onRemoved)
            m_onRemoved(workspaceId);
    } else
        qCWarning(lcCache) << "cannot delete the mirror of" << workspaceId;
    return removed;
}

QList<CacheEntry> WarmCache::list() const
{
    QMutexLocker guard(&m_mutex);
    QList<CacheEntry> list = m_entries.values();
    list.erase(
        std::remove_if(list.begin(), list.end(),
            [this](const CacheEntry &e) { return !e.lastUsed.isValid() || m_evictAtRelease.contains(e.workspaceId); }),
        list.end());
    std::sort(
        list.begin(), list.end(), [](const CacheEntry &a, const CacheEntry &b) { return a.lastUsed > b.lastUsed; });
    return list;
}

qint64 WarmCache::totalBytes() const
{
    QMutexLocker guard(&m_mutex);
    qint64 total = 0;
    for (const CacheEntry &e : m_entries)
        if (!m_evictAtRelease.contains(e.workspaceId))
            total += e.bytes;
    return total;
}

Status WarmCache::evictLocked(const QString &workspaceId)
{
    const std::shared_ptr<QMutex> lock = m_locks.value(workspaceId);
    if (lock && !lock->tryLock()) {
        if (!m_background.contains(workspaceId))
            return Error::unavailable(
                QStringLiteral("workspace %1 is in use by a session's operation; try again when it is done")
                    .arg(workspaceId));
        m_evictAtRelease.insert(workspaceId);
        qCInfo(lcCache) << "evicted" << workspaceId << "- its files go when the spare session being built lets go";
        return {};
    }
    const bool removed = remove(workspaceId);
    if (lock)
        lock->unlock();
    if (!removed)
        return Error::failed(QStringLiteral("cannot delete the cached copy of %1").arg(workspaceId));
    qCInfo(lcCache) << "evicted" << workspaceId;
    return {};
}

Status WarmCache::evict(const QString &workspaceId)
{
    QMutexLocker guard(&m_mutex);
    if (m_evictAtRelease.contains(workspaceId)
        || (!m_entries.contains(workspaceId) && !QFileInfo::exists(mirrorDir(workspaceId))))
        return Error::notFound(QStringLiteral("workspace %1 is not in the cache").arg(workspaceId));
    const Status evicted = evictLocked(workspaceId);
    save();
    return evicted;
}

QStringList WarmCache::clear()
{
    QMutexLocker guard(&m_mutex);
    QStringList kept;
    const QStringList ids = m_entries.keys();
    for (const QString &id : ids) {
        if (!m_evictAtRelease.contains(id) && !evictLocked(id))
            kept.append(id);
    }
    save();
    qCInfo(lcCache) << "cleared;" << kept.size() << "kept";
    return kept;
}

QStringList WarmCache::enforceLimit()
{
    QMutexLocker guard(&m_mutex);
    qint64 total = 0;
    QList<CacheEntry> byAge;
    for (const CacheEntry &e : std::as_const(m_entries)) {
        if (m_evictAtRelease.contains(e.workspaceId))
            continue;
        total += e.bytes;
        if (e.lastUsed.isValid())
            byAge.append(e);
    }
    QStringList evicted;
    if (total <= m_maxBytes || byAge.size() < 2)
        return evicted;
    std::sort(
        byAge.begin(), byAge.end(), [](const CacheEntry &a, const CacheEntry &b) { return a.lastUsed < b.lastUsed; });
    byAge.removeLast(); // the one used last stays
    for (const CacheEntry &e : std::as_const(byAge)) {
        if (total <= m_maxBytes)
            break;
        // As evict does: a session's operation keeps its mirror; background work does not.
        if (evictLocked(e.workspaceId)) {
            total -= e.bytes;
            evicted.append(e.workspaceId);
        }
    }
    if (!evicted.isEmpty()) {
        save();
        qCInfo(lcCache) << "evicted" << evicted << "to stay under" << m_maxBytes << "bytes";
    }
    return evicted;
}

WarmCache::Lease::Lease(WarmCache *cache, QString id, std::shared_ptr<QMutex> lock, Use use)
    : m_cache(cache)
    , m_id(std::move(id))
    , m_use(use)
    , m_lock(std::move(lock))
{ }

WarmCache::Lease::~Lease()
{
    m_mirror.reset();
    std::optional<qint64> bytes;
    if (m_growth && m_bytesBefore > 0)
        bytes = m_bytesBefore + *m_growth;
    m_cache->release(m_id, bytes, m_use);
    m_lock->unlock();
    m_cache->enforceLimit();
}

QString WarmCache::Lease::gitDir() const
{
    return m_cache->mirrorDir(m_id);
}

Result<WorkspaceMirror *, WorkspaceError> WarmCache::Lease::mirror()
{
    if (!m_mirror) {
        auto opened = WorkspaceMirror::open(gitDir());
        if (!opened)
            return opened.error();
        m_mirror = std::move(opened.value());
    }
    return m_mirror.get();
}

CacheEntry WarmCache::Lease::entry() const
{
    QMutexLocker guard(&m_cache->m_mutex);
    return m_cache->m_entries.value(m_id);
}

QString WarmCache::Lease::instanceId()
{
    const QString dir = gitDir();
    const QString path = dir + QStringLiteral("/isolation-instance");
    static const QRegularExpression shape(QStringLiteral("^[0-9a-f]{32}$"));
    QFile in(path);
    if (in.open(QIODevice::ReadOnly)) {
        const QString id = QString::fromLatin1(in.read(64).trimmed());
        if (shape.match(id).hasMatch())
            return id;
    }
    // Made (or damaged) just now: whatever the mirror holds is not known to anyone yet.
    QByteArray random(16, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(random.data()), random.size() / 4);
    const QByteArray id = random.toHex();
    QSaveFile out(path);
    if (!QDir().mkpath(dir) || !out.open(QIODevice::WriteOnly) || out.write(id + '\n') != id.size() + 1
        || !out.commit())
        return {};
    return QString::fromLatin1(id);
}

void WarmCache::Lease::grew(qint64 bytes)
{
    m_growth = m_growth.value_or(0) + bytes;
}

bool WarmCache::Lease::accepts(qint64 generation) const
{
    QMutexLocker guard(&m_cache->m_mutex);
    return generation >= m_cache->m_entries.value(m_id).generation;
}

bool WarmCache::Lease::record(const QByteArray &etag, qint64 generation)
{
    QMutexLocker guard(&m_cache->m_mutex);
    CacheEntry &e = m_cache->m_entries[m_id];
    if (generation < e.generation)
        return false;
    e.etag = etag;
    e.generation = generation;
    return true;
}

void WarmCache::Lease::setName(const QString &name)
{
    QMutexLocker guard(&m_cache->m_mutex);
    m_cache->m_entries[m_id].name = name;
}

} // namespace isolation
