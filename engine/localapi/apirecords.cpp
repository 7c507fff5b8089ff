#include "apirecords.h"

#include <QJsonArray>
#include <QRandomGenerator>

#include <array>
#include <utility>

namespace isolation::api {

namespace {

QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

qint64 num(const QJsonObject &o, const char *key, qint64 otherwise = 0)
{
    return o.value(QLatin1String(key)).toInteger(otherwise);
}

QDateTime when(const QJsonObject &o, const char *key)
{
    const QString text = str(o, key);
    return text.isEmpty() ? QDateTime() : QDateTime::fromString(text, Qt::ISODateWithMs);
}

template<typename E, size_t N>
E lookup(const std::array<std::pair<const char *, E>, N> &table, const QString &name, E otherwise)
{
    for (const auto &[text, value] : table) {
        if (name == QLatin1String(text))
            return value;
    }
    return otherwise;
}

QList<ConflictedFile> conflictsFrom(const QJsonArray &list)
{
    QList<ConflictedFile> files;
    for (const QJsonValue v : list)
        files.append({v.toObject().value(QLatin1String("path")).toString(),
            v.toObject().value(QLatin1String("regions")).toInt()});
    return files;
}

SaveOutcome saveFrom(const QJsonObject &o)
{
    SaveOutcome s;
    s.at = when(o, "at");
    s.outcome = str(o, "outcome");
    const QJsonObject error = o.value(QLatin1String("error")).toObject();
    s.errorMessage = error.value(QLatin1String("message")).toString();
    s.conflicts = conflictsFrom(error.value(QLatin1String("conflicts")).toArray());
    s.published = o.value(QLatin1String("published")).toBool();
    s.completedMerge = o.value(QLatin1String("completedMerge")).toBool();
    s.segmentBytes = num(o, "segmentBytes");
    for (const QJsonValue v : o.value(QLatin1String("files")).toArray())
        s.files << v.toString();
    return s;
}

SyncOutcome syncFrom(const QJsonObject &o)
{
    SyncOutcome s;
    s.at = when(o, "at");
    s.outcome = str(o, "outcome");
    const QJsonObject error = o.value(QLatin1String("error")).toObject();
    s.errorMessage = error.value(QLatin1String("message")).toString();
    // A sync that stopped on conflicts carries them in its error; one that left markers, in itself.
    s.conflicts = conflictsFrom(
        (error.isEmpty() ? o : error).value(QLatin1String("conflicts")).toArray());
    s.bytesDownloaded = num(o, "bytesDownloaded");
    return s;
}

Sandbox sandboxFrom(const QJsonObject &o)
{
    Sandbox s;
    if (o.isEmpty())
        return s;
    s.stateName = str(o, "state");
    s.state = sandboxStateFromName(s.stateName);
    s.reason = str(o, "reason");
    s.id = str(o, "id");
    const QJsonObject agent = o.value(QLatin1String("agent")).toObject();
    if (!agent.isEmpty()) {
        s.agent.state = agentStateFromName(str(agent, "state"));
        s.agent.command = str(agent, "command");
        s.agent.restarts = agent.value(QLatin1String("restarts")).toInt();
    }
    return s;
}

} // namespace

SessionState sessionStateFromName(const QString &name)
{
    static constexpr std::array<std::pair<const char *, SessionState>, 5> table {{
        {"opening", SessionState::Opening},
        {"ready", SessionState::Ready},
        {"saving", SessionState::Saving},
        {"syncing", SessionState::Syncing},
        {"failed", SessionState::Failed},
    }};
    return lookup(table, name, SessionState::Unknown);
}

SandboxState sandboxStateFromName(const QString &name)
{
    if (name.isEmpty())
        return SandboxState::None;
    static constexpr std::array<std::pair<const char *, SandboxState>, 15> table {{
        {"idle", SandboxState::Launching},
        {"building", SandboxState::Launching},
        {"adopting", SandboxState::Launching},
        {"creating", SandboxState::Launching},
        {"starting", SandboxState::Launching},
        {"preparing", SandboxState::Launching},
        {"running", SandboxState::Running},
        {"pausing", SandboxState::Pausing},
        {"paused", SandboxState::Suspended},
        {"suspended", SandboxState::Suspended},
        {"resuming", SandboxState::Resuming},
        {"deleting", SandboxState::Finishing},
        {"deleted", SandboxState::Gone},
        {"lost", SandboxState::Gone},
        {"failed", SandboxState::Failed},
    }};
    return lookup(table, name, SandboxState::Unknown);
}

AgentState agentStateFromName(const QString &name)
{
    if (name.isEmpty())
        return AgentState::None;
    static constexpr std::array<std::pair<const char *, AgentState>, 7> table {{
        {"idle", AgentState::Idle},
        {"running", AgentState::Running},
        {"waiting", AgentState::Waiting},
        {"stopping", AgentState::Stopping},
        {"stopped", AgentState::Stopped},
        {"exited", AgentState::Exited},
        {"failed", AgentState::Failed},
    }};
    return lookup(table, name, AgentState::Unknown);
}

FileStatus fileStatusFromName(const QString &name)
{
    static constexpr std::array<std::pair<const char *, FileStatus>, 7> table {{
        {"added", FileStatus::Added},
        {"modified", FileStatus::Modified},
        {"deleted", FileStatus::Deleted},
        {"renamed", FileStatus::Renamed},
        {"type_change", FileStatus::TypeChange},
        {"conflicted", FileStatus::Conflicted},
        {"untracked", FileStatus::Untracked},
    }};
    return lookup(table, name, FileStatus::Modified);
}

Status statusFromJson(const QJsonObject &o)
{
    Status s;
    s.state = engineStateFromName(str(o, "state"));
    s.reason = str(o, "reason");
    s.paired = o.value(QLatin1String("paired")).toBool();
    s.connected = o.value(QLatin1String("connected")).toBool(true);
    s.hub = str(o, "hub");
    s.serverId = str(o, "serverId");
    s.serverName = str(o, "serverName");
    s.hostName = str(o, "hostName");
    s.version = str(o, "version");
    s.pid = num(o, "pid");
    s.home = str(o, "home");
    s.socket = str(o, "socket");
    s.credentialStore = str(o, "credentialStore");
    s.credentialStoreError = str(o, "credentialStoreError");
    s.credentialStoreProblem = str(o, "credentialStoreProblem");
    s.warnings = warningsFromJson(o.value(QLatin1String("warnings")).toArray());
    return s;
}

QList<Warning> warningsFromJson(const QJsonArray &a)
{
    QList<Warning> out;
    for (const QJsonValue v : a) {
        const QJsonObject o = v.toObject();
        out.append({str(o, "code"), str(o, "severity") == QLatin1String("error"), str(o, "message"),
            QDateTime::fromString(str(o, "since"), Qt::ISODate)});
    }
    return out;
}

Pairing pairingFromJson(const QJsonObject &o)
{
    Pairing p;
    p.paired = o.value(QLatin1String("paired")).toBool();
    p.state = str(o, "state");
    p.userCode = str(o, "userCode");
    p.verificationUri = str(o, "verificationUri");
    p.verificationUriComplete = str(o, "verificationUriComplete");
    p.expiresAt = when(o, "expiresAt");
    p.reason = str(o, "reason");
    p.serverId = str(o, "serverId");
    return p;
}

Runtime runtimeFromJson(const QJsonObject &o)
{
    Runtime r;
    r.state = str(o, "state");
    r.reason = str(o, "reason");
    r.pin = str(o, "pin");
    r.image = str(o, "image");
    r.execdImage = str(o, "execdImage");
    r.digest = str(o, "digest");
    r.container = str(o, "container");
    r.containerId = str(o, "containerId");
    r.containerState = str(o, "containerState");
    r.url = str(o, "url");
    r.sessionDirectory = str(o, "sessionDirectory");
    r.restarts = o.value(QLatin1String("restarts")).toInt();
    r.standin = o.value(QLatin1String("standin")).toBool();
    r.startedAt = when(o, "startedAt");
    return r;
}

Progress progressFromJson(const QJsonObject &o)
{
    Progress p;
    p.operation = str(o, "operation");
    p.phase = str(o, "phase");
    p.bytes = num(o, "bytes");
    p.totalBytes = num(o, "totalBytes", -1);
    p.cancellable = o.value(QLatin1String("cancellable")).toBool();
    return p;
}

Session sessionFromJson(const QJsonObject &o)
{
    Session s;
    s.id = str(o, "id");
    const QJsonObject workspace = o.value(QLatin1String("workspace")).toObject();
    s.workspaceId = workspace.value(QLatin1String("id")).toString();
    s.workspaceName = workspace.value(QLatin1String("name")).toString();
    if (s.workspaceName.isEmpty())
        s.workspaceName = s.workspaceId;
    s.branch = str(o, "branch");
    s.workTree = str(o, "worktree");
    s.state = sessionStateFromName(str(o, "state"));
    s.reason = str(o, "reason");
    s.progress = progressFromJson(o.value(QLatin1String("progress")).toObject());
    s.lastSave = saveFrom(o.value(QLatin1String("lastSave")).toObject());
    s.lastSync = syncFrom(o.value(QLatin1String("lastSync")).toObject());
    s.sandbox = sandboxFrom(o.value(QLatin1String("sandbox")).toObject());
    for (const QJsonValue v : o.value(QLatin1String("conflicts")).toArray())
        s.conflicts << v.toString();
    if (const QJsonObject pending = o.value(QLatin1String("pendingChanges")).toObject(); !pending.isEmpty()) {
        PendingChanges p;
        p.files = pending.value(QLatin1String("files")).toInt();
        p.conflicted = pending.value(QLatin1String("conflicted")).toInt();
        p.ahead = pending.value(QLatin1String("ahead")).toInt();
        p.behind = pending.value(QLatin1String("behind")).toInt();
        p.mergeInProgress = pending.value(QLatin1String("mergeInProgress")).toBool();
        s.pending = p;
    }
    s.queued = o.value(QLatin1String("queued")).toInt();
    return s;
}

Changes changesFromJson(const QJsonObject &o)
{
    Changes c;
    for (const QJsonValue v : o.value(QLatin1String("files")).toArray()) {
        const QJsonObject f = v.toObject();
        c.files.append({str(f, "path"), str(f, "oldPath"), fileStatusFromName(str(f, "status"))});
    }
    c.ahead = o.value(QLatin1String("ahead")).toInt();
    c.behind = o.value(QLatin1String("behind")).toInt();
    c.mergeInProgress = o.value(QLatin1String("mergeInProgress")).toBool();
    c.refreshed = o.value(QLatin1String("refreshed")).toBool();
    c.movedOn = o.value(QLatin1String("movedOn")).toBool();
    return c;
}

FileDiff diffFromJson(const QJsonObject &o)
{
    return FileDiff {str(o, "text"), o.value(QLatin1String("binary")).toBool(),
        o.value(QLatin1String("truncated")).toBool()};
}

Cache cacheFromJson(const QJsonObject &o)
{
    Cache c;
    c.available = !o.isEmpty();
    for (const QJsonValue v : o.value(QLatin1String("workspaces")).toArray()) {
        const QJsonObject w = v.toObject();
        CacheEntry e;
        e.workspaceId = str(w, "workspace");
        e.name = str(w, "name");
        e.bytes = num(w, "bytes");
        e.generation = num(w, "generation");
        e.lastUsed = when(w, "lastUsed");
        e.inUse = w.value(QLatin1String("inUse")).toBool();
        const QJsonObject spare = w.value(QLatin1String("spare")).toObject();
        e.hasSpare = !spare.isEmpty();
        e.spareBytes = num(spare, "bytes");
        c.workspaces.append(e);
    }
    c.bytes = num(o, "bytes");
    c.maxBytes = num(o, "maxBytes");
    c.directory = str(o, "directory");
    c.spareSessions = o.value(QLatin1String("spareSessions")).toBool();
    c.spareBytes = num(o, "spareBytes");
    return c;
}

ActivityEntry activityFromJson(const QJsonObject &o)
{
    return ActivityEntry {when(o, "time").toUTC(), str(o, "kind"), str(o, "message"), o.value(QLatin1String("details")).toObject()};
}

Snapshot snapshotFromJson(const QJsonObject &o)
{
    Snapshot s;
    s.lastEventId = str(o, "lastEventId");
    s.status = statusFromJson(o.value(QLatin1String("status")).toObject());
    s.pairing = pairingFromJson(o.value(QLatin1String("pairing")).toObject());
    s.runtime = runtimeFromJson(o.value(QLatin1String("runtime")).toObject());
    for (const QJsonValue v : o.value(QLatin1String("sessions")).toArray())
        s.sessions.append(sessionFromJson(v.toObject()));
    s.cache = cacheFromJson(o.value(QLatin1String("cache")).toObject());
    for (const QJsonValue v : o.value(QLatin1String("activity")).toArray())
        s.activity.append(activityFromJson(v.toObject()));
    return s;
}

QString newSessionId()
{
    quint8 random[6];
    QRandomGenerator::system()->generate(std::begin(random), std::end(random));
    return QStringLiteral("s") + QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(random), 6).toHex());
}

} // namespace isolation::api
