#include "sparepool.h"

#include "sessionerror.h"

#include "cache/warmcache.h"
#include "crypto/random.h"
#include "workspace/objectlinker.h"
#include "workspace/workspace.h"
#include "workspace/workspacemirror.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>
#include <cstdio>

namespace isolation {

namespace {

// rename(2): atomic, and refuses rather than copies across file systems.
bool moveDir(const QString &from, const QString &to)
{
    return std::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) == 0;
}

QString randomSuffix()
{
    return QString::fromLatin1(randomBytes(6).toHex());
}

bool writeMarker(const QString &path, const Spare &s)
{
    QSaveFile file(path);
    const QJsonObject o {{QStringLiteral("workspace"), s.workspaceId}, {QStringLiteral("placeholder"), s.placeholder},
        {QStringLiteral("etag"), QString::fromLatin1(s.etag)}, {QStringLiteral("generation"), s.generation},
        {QStringLiteral("main"), QString::fromLatin1(s.main)}, {QStringLiteral("bytes"), s.bytes},
        {QStringLiteral("built"), s.built.toUTC().toString(Qt::ISODateWithMs)}};
    return file.open(QIODevice::WriteOnly) && file.write(QJsonDocument(o).toJson()) >= 0 && file.commit();
}

} // namespace

SparePool::SparePool(QString dir)
    : m_dir(std::move(dir))
{ }

QString SparePool::spareDir(const QString &workspaceId) const
{
    return m_dir + QLatin1Char('/') + workspaceId;
}

std::optional<Spare> SparePool::read(const QString &markerPath)
{
    QFile file(markerPath);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    Spare s;
    s.workspaceId = o.value(QStringLiteral("workspace")).toString();
    s.placeholder = o.value(QStringLiteral("placeholder")).toString();
    s.etag = o.value(QStringLiteral("etag")).toString().toLatin1();
    s.generation = o.value(QStringLiteral("generation")).toInteger();
    s.main = o.value(QStringLiteral("main")).toString().toLatin1();
    s.bytes = o.value(QStringLiteral("bytes")).toInteger();
    s.built = QDateTime::fromString(o.value(QStringLiteral("built")).toString(), Qt::ISODateWithMs);
    if (!WarmCache::isWorkspaceId(s.workspaceId) || s.placeholder.isEmpty() || s.etag.isEmpty())
        return std::nullopt;
    return s;
}

std::optional<Spare> SparePool::spare(const QString &workspaceId) const
{
    if (!WarmCache::isWorkspaceId(workspaceId))
        return std::nullopt;
    QMutexLocker lock(&m_mutex);
    auto s = read(spareDir(workspaceId) + QLatin1Char('/') + QLatin1String(kMarker));
    if (s && s->workspaceId != workspaceId)
        return std::nullopt;
    return s;
}

std::optional<Spare> SparePool::take(const QString &workspaceId, const QString &sessionDir)
{
    if (!WarmCache::isWorkspaceId(workspaceId))
        return std::nullopt;
    QMutexLocker lock(&m_mutex);
    const QString dir = spareDir(workspaceId);
    auto s = read(dir + QLatin1Char('/') + QLatin1String(kMarker));
    if (!s || s->workspaceId != workspaceId)
        return std::nullopt;
    if (QFileInfo::exists(sessionDir) || !QDir().mkpath(QFileInfo(sessionDir).path()) || !moveDir(dir, sessionDir)) {
        qCWarning(lcSessions) << "the spare of" << workspaceId << "could not be moved to" << sessionDir;
        return std::nullopt;
    }
    return s;
}

bool SparePool::install(const QString &workspaceId, const QString &build, QString *why)
{
    QString old;
    {
        QMutexLocker lock(&m_mutex);
        const QString dir = spareDir(workspaceId);
        if (QFileInfo::exists(dir)) {
            old = m_dir + QStringLiteral("/.old-") + workspaceId + QLatin1Char('-') + randomSuffix();
            if (!moveDir(dir, old)) {
                *why = QStringLiteral("cannot move %1 aside").arg(dir);
                return false;
            }
        }
        if (!moveDir(build, dir)) {
            *why = QStringLiteral("cannot move %1 to %2").arg(build, dir);
            return false;
        }
    }
    if (!old.isEmpty())
        QDir(old).removeRecursively();
    return true;
}

Result<bool, WorkspaceError> SparePool::prepare(WarmCache &cache, const QString &workspaceId, const Clock &clock)
{
    if (!WarmCache::isWorkspaceId(workspaceId))
        return WorkspaceError::failed(QStringLiteral("invalid workspace id '%1'").arg(workspaceId));
    if (!QDir().mkpath(m_dir))
        return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(m_dir));
    // What a kill left half-built or half-deleted.
    for (const QString &d : QDir(m_dir).entryList({QStringLiteral(".*-") + workspaceId + QStringLiteral("-*")},
             QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot))
        QDir(m_dir + QLatin1Char('/') + d).removeRecursively();

    Spare s;
    s.workspaceId = workspaceId;
    s.placeholder = QStringLiteral("spare-") + randomSuffix();
    const QString build = m_dir + QStringLiteral("/.build-") + workspaceId + QLatin1Char('-') + randomSuffix();
    const auto failed = [&build](const WorkspaceError &e) -> Result<bool, WorkspaceError> {
        QDir(build).removeRecursively();
        return e;
    };
    std::unique_ptr<Workspace> ws;
    bool forward = false; // an older spare brought forward rather than a new one checked out
    WorkspaceError why = WorkspaceError::failed(QStringLiteral("cannot build the spare in %1").arg(build));
    {
        // The cache's objects and branches, under its lease; the checkout after, without it.
        auto lease = cache.lease(workspaceId, WarmCache::Use::Background);
        const CacheEntry entry = lease->entry();
        if (entry.etag.isEmpty())
            return false;
        const std::optional<Spare> current = spare(workspaceId);
        if (current && current->generation >= entry.generation)
            return false;
        auto mirror = lease->mirror();
        if (!mirror)
            return mirror.error();
        auto refs = mirror.value()->refs();
        if (!refs)
            return refs.error();
        // The spare there, older and never used: moved aside to be brought forward, so only the
        // files that changed since are written (a save of one file costs one file here, not a
        // checkout of the tree). No spare can be taken meanwhile: a start then builds as usual.
        if (current) {
            QMutexLocker lock(&m_mutex);
            forward = moveDir(spareDir(workspaceId), build);
        }
        for (int attempt = forward ? 0 : 1; attempt < 2 && !ws; ++attempt) {
            if (attempt == 1 && forward) {
                QDir(build).removeRecursively(); // bringing it forward failed: a new one instead
                forward = false;
            }
            if (forward) {
                s.placeholder = current->placeholder;
                QFile::remove(build + QLatin1Char('/') + QLatin1String(kMarker));
            }
            auto opened = Workspace::open(build + QStringLiteral("/git"), build + QStringLiteral("/workspace"),
                s.placeholder, clock);
            if (!opened) {
                why = opened.error();
                continue;
            }
            std::unique_ptr<Workspace> candidate = std::move(opened.value());
            if (forward) {
                // Never used, so its files are main's; were one changed anyway, it is made anew.
                auto changed = candidate->changes();
                if (!changed || !changed.value().files.isEmpty() || changed.value().mergeInProgress) {
                    qCInfo(lcSessions) << "the spare of" << workspaceId << "is made anew: its files changed";
                    continue;
                }
            }
            auto linked = ObjectLinker::link(lease->gitDir(), candidate->gitDir());
            auto adopted = linked ? candidate->adoptHubRefs(refs.value())
                                  : Result<ApplyResult, WorkspaceError>(linked.error());
            if (!adopted) {
                why = adopted.error();
                if (!forward)
                    return failed(why);
                qCInfo(lcSessions) << "the spare of" << workspaceId << "is made anew:" << adopted.error().message;
                continue;
            }
            ws = std::move(candidate);
        }
        if (!ws)
            return failed(why);
        s.etag = entry.etag;
        s.generation = entry.generation;
    }
    // The session branch is at main's commit of the spare's older generation, or at the root
    // commit of a new one: main comes in as a fast-forward, writing the files that differ.
    auto merged = ws->mergeMainIntoSession(ConflictMode::Stop);
    if (!merged)
        return failed(merged.error());
    if (merged.value().outcome == SyncOutcome::Conflicted)
        return failed(WorkspaceError::failed(QStringLiteral("main does not check out cleanly")));
    auto main = ws->refId("main");
    if (!main)
        return failed(main.error());
    s.main = main.value();
    ws.reset();
    s.bytes = WarmCache::directorySize(build);
    s.built = QDateTime::currentDateTimeUtc();
    if (!writeMarker(build + QLatin1Char('/') + QLatin1String(kMarker), s))
        return failed(WorkspaceError::failed(QStringLiteral("cannot write %1/%2").arg(build, QLatin1String(kMarker))));

    if (QString why; !install(workspaceId, build, &why))
        return failed(WorkspaceError::failed(why));
    // Evicted while this was built (the cache's removal hook found no spare then): it goes too.
    const QList<CacheEntry> cached = cache.list();
    if (std::none_of(cached.cbegin(), cached.cend(), [&](const CacheEntry &e) { return e.workspaceId == workspaceId; })) {
        remove(workspaceId);
        return false;
    }
    qCInfo(lcSessions) << "spare session of" << workspaceId << "ready at generation" << s.generation
                       << (forward ? "(brought forward)" : "(checked out)");
    return true;
}

void SparePool::remove(const QString &workspaceId)
{
    if (!WarmCache::isWorkspaceId(workspaceId))
        return;
    const QString old = m_dir + QStringLiteral("/.old-") + workspaceId + QLatin1Char('-') + randomSuffix();
    {
        QMutexLocker lock(&m_mutex);
        if (!moveDir(spareDir(workspaceId), old))
            return;
    }
    QDir(old).removeRecursively();
}

Result<std::optional<Spare>, WorkspaceError> SparePool::claim(const QString &sessionDir, const QString &sessionId)
{
    const QString marker = sessionDir + QLatin1Char('/') + QLatin1String(kMarker);
    if (!QFileInfo::exists(marker))
        return std::optional<Spare>();
    auto s = read(marker);
    if (!s)
        return WorkspaceError::corrupt(QStringLiteral("%1 is not a spare's record").arg(marker));
    if (auto renamed = Workspace::renameSession(
            sessionDir + QStringLiteral("/git"), sessionDir + QStringLiteral("/workspace"), s->placeholder, sessionId);
        !renamed)
        return renamed.error();
    if (!QFile::remove(marker))
        return WorkspaceError::failed(QStringLiteral("cannot remove %1").arg(marker));
    return s;
}

} // namespace isolation
