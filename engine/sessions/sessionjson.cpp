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
    QJsonObject error {{QStringLiteral("code"), sessionErrorCodeName(e)}, {QStringLiteral("message"), e.message}};
    if (!e.conflicts.isEmpty())
        error.insert(QStringLiteral("conflicts"), toJson(e.conflicts));
    return QJsonObject {{QStringLiteral("outcome"), sessionErrorCodeName(e)}, {QStringLiteral("error"), error}};
}

QJsonObject toJson(const SessionProgress &p)
{
    if (p.operation.isEmpty())
        return {};
    QJsonObject o {{QStringLiteral("operation"), p.operation}, {QStringLiteral("phase"), p.phase},
        {QStringLiteral("bytes"), p.bytes}, {QStringLiteral("startedAt"), p.startedAt.toString(Qt::ISODateWithMs)},
        {QStringLiteral("cancellable"), p.cancellable}};
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
        {QStringLiteral("lastSave"), r.lastSave ? toJson(*r.lastSave) : QJsonObject()},
        {QStringLiteral("lastSync"), r.lastSync ? toJson(*r.lastSync) : QJsonObject()},
        {QStringLiteral("queued"), s.queued()}, {QStringLiteral("settlePending"), bool(r.pending)}};
    if (r.sandbox)
        o.insert(QStringLiteral("sandbox"), r.sandbox->toJson());
    if (!s.reason().isEmpty())
        o.insert(QStringLiteral("reason"), s.reason());
    const QJsonObject progress = toJson(s.progress());
    if (!progress.isEmpty())
        o.insert(QStringLiteral("progress"), progress);
    return o;
}

namespace {

QString atText(const QDateTime &at)
{
    return at.toUTC().toString(Qt::ISODateWithMs);
}

QList<ConflictedFile> conflictsFromJson(const QJsonArray &list)
{
    QList<ConflictedFile> files;
    for (const QJsonValue v : list)
        files.append(ConflictedFile {v.toObject().value(QStringLiteral("path")).toString(),
            v.toObject().value(QStringLiteral("regions")).toInt()});
    return files;
}

// {"outcome": code, "error": {"code", "message", "conflicts"?}} → the error; nullopt when not one.
std::optional<SessionError> errorFromJson(const QJsonObject &o)
{
    const QJsonObject error = o.value(QStringLiteral("error")).toObject();
    if (error.isEmpty())
        return std::nullopt;
    SessionError e = sessionErrorNamed(error.value(QStringLiteral("code")).toString(),
        error.value(QStringLiteral("message")).toString());
    e.conflicts = conflictsFromJson(error.value(QStringLiteral("conflicts")).toArray());
    return e;
}

} // namespace

QJsonObject toJson(const LastSave &outcome)
{
    QJsonObject o = outcome.result ? toJson(outcome.result.value()) : toJson(outcome.result.error());
    o.insert(QStringLiteral("at"), atText(outcome.at));
    return o;
}

QJsonObject toJson(const LastSync &outcome)
{
    QJsonObject o = outcome.result ? toJson(outcome.result.value()) : toJson(outcome.result.error());
    o.insert(QStringLiteral("at"), atText(outcome.at));
    return o;
}

std::optional<LastSave> lastSaveFromJson(const QJsonObject &o)
{
    const QDateTime at = QDateTime::fromString(o.value(QStringLiteral("at")).toString(), Qt::ISODateWithMs);
    if (!at.isValid())
        return std::nullopt;
    LastSave outcome;
    outcome.at = at.toUTC();
    if (auto e = errorFromJson(o)) {
        outcome.result = *e;
        return outcome;
    }
    SaveReport r;
    r.published = o.value(QStringLiteral("published")).toBool();
    r.committed = o.value(QStringLiteral("committed")).toBool();
    r.completedMerge = o.value(QStringLiteral("completedMerge")).toBool();
    r.commit = o.value(QStringLiteral("commit")).toString().toLatin1();
    r.main = o.value(QStringLiteral("main")).toString().toLatin1();
    r.saveId = o.value(QStringLiteral("saveId")).toString();
    r.generation = o.value(QStringLiteral("generation")).toInteger();
    r.compacted = o.value(QStringLiteral("compacted")).toBool();
    r.segmentBytes = o.value(QStringLiteral("segmentBytes")).toInteger();
    for (const QJsonValue v : o.value(QStringLiteral("files")).toArray())
        r.files << v.toString();
    r.settled = o.value(QStringLiteral("settled")).toBool();
    r.resumed = o.value(QStringLiteral("resumed")).toBool();
    outcome.result = r;
    return outcome;
}

std::optional<LastSync> lastSyncFromJson(const QJsonObject &o)
{
    const QDateTime at = QDateTime::fromString(o.value(QStringLiteral("at")).toString(), Qt::ISODateWithMs);
    if (!at.isValid())
        return std::nullopt;
    LastSync outcome;
    outcome.at = at.toUTC();
    if (auto e = errorFromJson(o)) {
        outcome.result = *e;
        return outcome;
    }
    SyncReport r;
    const QString name = o.value(QStringLiteral("outcome")).toString();
    for (auto v : {SyncOutcome::UpToDate, SyncOutcome::FastForwarded, SyncOutcome::Merged, SyncOutcome::Conflicted,
             SyncOutcome::ConflictsLeft}) {
        if (syncOutcomeName(v) == name)
            r.outcome = v;
    }
    r.conflicts = conflictsFromJson(o.value(QStringLiteral("conflicts")).toArray());
    r.hubMoved = o.value(QStringLiteral("hubMoved")).toBool();
    r.segmentsDownloaded = o.value(QStringLiteral("segmentsDownloaded")).toInt();
    r.bytesDownloaded = o.value(QStringLiteral("bytesDownloaded")).toInteger();
    r.generation = o.value(QStringLiteral("generation")).toInteger();
    r.main = o.value(QStringLiteral("main")).toString().toLatin1();
    r.session = o.value(QStringLiteral("session")).toString().toLatin1();
    outcome.result = r;
    return outcome;
}

} // namespace isolation
