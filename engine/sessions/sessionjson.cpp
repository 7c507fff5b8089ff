#include "sessionjson.h"

#include "session.h"
#include "sparepool.h"

#include "cache/warmcache.h"

namespace isolation {

QString syncOutcomeName(SyncOutcome outcome)
{
    switch (outcome) {
    case SyncOutcome::UpToDate:
        return QStringLiteral("up_to_date");
    case SyncOutcome::FastForwarded:
        return QStringLiteral("fast_forwarded");
    case SyncOutcome::Merged:
        return QStringLiteral("merged");
    case SyncOutcome::Conflicted:
        return QStringLiteral("conflicted");
    case SyncOutcome::ConflictsLeft:
        return QStringLiteral("conflicts_left");
    }
    return QStringLiteral("up_to_date");
}

QString fileStatusName(FileStatus status)
{
    switch (status) {
    case FileStatus::Added:
        return QStringLiteral("added");
    case FileStatus::Modified:
        return QStringLiteral("modified");
    case FileStatus::Deleted:
        return QStringLiteral("deleted");
    case FileStatus::Renamed:
        return QStringLiteral("renamed");
    case FileStatus::TypeChange:
        return QStringLiteral("type_change");
    case FileStatus::Conflicted:
        return QStringLiteral("conflicted");
    case FileStatus::Untracked:
        return QStringLiteral("untracked");
    }
    return QStringLiteral("modified");
}

QJsonArray toJson(const QList<ConflictedFile> &conflicts)
{
    QJsonArray a;
    for (const ConflictedFile &c : conflicts)
        a.append(QJsonObject {{QStringLiteral("path"), c.path}, {QStringLiteral("regions"), c.regions}});
    return a;
}

QJsonObject toJson(const SaveReport &r)
{
    return QJsonObject {
        {QStringLiteral("outcome"), r.published ? QStringLiteral("published") : QStringLiteral("nothing_to_save")},
        {QStringLiteral("published"), r.published}, {QStringLiteral("committed"), r.committed},
        {QStringLiteral("completedMerge"), r.completedMerge}, {QStringLiteral("commit"), QString::fromLatin1(r.commit)},
        {QStringLiteral("main"), QString::fromLatin1(r.main)}, {QStringLiteral("saveId"), r.saveId},
        {QStringLiteral("generation"), r.generation}, {QStringLiteral("compacted"), r.compacted},
        {QStringLiteral("segmentBytes"), r.segmentBytes},
        {QStringLiteral("files"), QJsonArray::fromStringList(r.files)}, {QStringLiteral("settled"), r.settled},
        {QStringLiteral("resumed"), r.resumed}};
}

QJsonObject toJson(const SyncReport &r)
{
    return QJsonObject {{QStringLiteral("outcome"), syncOutcomeName(r.outcome)},
        {QStringLiteral("conflicts"), toJson(r.conflicts)}, {QStringLiteral("hubMoved"), r.hubMoved},
        {QStringLiteral("segmentsDownloaded"), r.segmentsDownloaded},
        {QStringLiteral("bytesDownloaded"), r.bytesDownloaded}, {QStringLiteral("generation"), r.generation},
        {QStringLiteral("main"), QString::fromLatin1(r.main)},
        {QStringLiteral("session"), QString::fromLatin1(r.session)}};
}

QJsonObject toJson(const ChangesReport &r)
{
    QJsonArray files;
    for (const FileChange &f : r.changes.files) {
        QJsonObject o {{QStringLiteral("path"), f.path}, {QStringLiteral("status"), fileStatusName(f.status)}};
        if (!f.oldPath.isEmpty())
            o.insert(QStringLiteral("oldPath"), f.oldPath);
        files.append(o);
    }
    QJsonObject o {{QStringLiteral("files"), files}, {QStringLiteral("ahead"), r.changes.ahead},
        {QStringLiteral("behind"), r.changes.behind}, {QStringLiteral("mergeInProgress"), r.changes.mergeInProgress},
        {QStringLiteral("generation"), r.generation}, {QStringLiteral("refreshed"), r.refreshed}};
    if (r.refreshed)
        o.insert(QStringLiteral("movedOn"), r.movedOn);
    return o;
}

QJsonObject toJson(const SessionError &e)
{
    QJsonObject error {{QStringLiteral("code"), sessionErrorCodeName(e.code)}, {QStringLiteral("message"), e.message}};
    if (!e.conflicts.isEmpty())
        error.insert(QStringLiteral("conflicts"), toJson(e.conflicts));
    return QJsonObject {{QStringLiteral("outcome"), sessionErrorCodeName(e.code)}, {QStringLiteral("error"), error}};
}

QJsonObject toJson(const SessionProgress &p)
{
    if (p.operation.isEmpty())
        return {};
    QJsonObject o {{QStringLiteral("operation"), p.operation}, {QStringLiteral("phase"), p.phase},
        {QStringLiteral("bytes"), p.bytes}, {QStringLiteral("startedAt"), p.startedAt.toString(Qt::ISODateWithMs)}};
    if (p.totalBytes >= 0)
        o.insert(QStringLiteral("totalBytes"), p.totalBytes);
    return o;
}

QJsonObject toJson(const CacheEntry &e)
{
    return QJsonObject {{QStringLiteral("workspace"), e.workspaceId}, {QStringLiteral("name"), e.name},
        {QStringLiteral("bytes"), e.bytes}, {QStringLiteral("generation"), e.generation},
        {QStringLiteral("lastUsed"), e.lastUsed.toUTC().toString(Qt::ISODate)}, {QStringLiteral("inUse"), e.inUse}};
}

QJsonObject toJson(const Spare &s)
{
    return QJsonObject {{QStringLiteral("generation"), s.generation}, {QStringLiteral("main"), QString::fromLatin1(s.main)},
        {QStringLiteral("bytes"), s.bytes}, {QStringLiteral("built"), s.built.toUTC().toString(Qt::ISODate)}};
}

QJsonObject toJson(const Session &s)
{
    const SessionRecord &r = s.record();
    QJsonObject o {{QStringLiteral("id"), s.id()},
        {QStringLiteral("workspace"),
            QJsonObject {{QStringLiteral("id"), r.workspaceId}, {QStringLiteral("name"), r.workspaceName}}},
        {QStringLiteral("branch"), QString(QStringLiteral("session/") + s.id())},
        {QStringLiteral("worktree"), s.workTree()}, {QStringLiteral("state"), sessionStateName(s.state())},
        {QStringLiteral("created"), r.created.toString(Qt::ISODate)}, {QStringLiteral("generation"), r.generation},
        {QStringLiteral("lastSave"), r.lastSave}, {QStringLiteral("lastSync"), r.lastSync},
        {QStringLiteral("queued"), s.queued()}, {QStringLiteral("settlePending"), bool(r.pending)}};
    if (!r.sandbox.isEmpty())
        o.insert(QStringLiteral("sandbox"), r.sandbox);
    if (!s.reason().isEmpty())
        o.insert(QStringLiteral("reason"), s.reason());
    const QJsonObject progress = toJson(s.progress());
    if (!progress.isEmpty())
        o.insert(QStringLiteral("progress"), progress);
    return o;
}

} // namespace isolation
