// localapi: what the engine's LocalAPI answers, typed, for its clients (the tray). JSON stops here:
// each record is read from the answer or event that carries it (docs/architecture.md, "LocalAPI"),
// and a name this version does not know reads as Unknown rather than as something it is not.
// Namespace `api`: these are the client's copies, not the engine's own types.
#pragma once

#include "core/activitylog.h"
#include "localapi/enginestate.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace isolation::api {

enum class SessionState { Opening, Ready, Saving, Syncing, Failed, Unknown };
enum class SandboxState {
    None, // the session has no sandbox
    Launching, // idle, creating, starting, preparing
    Running,
    Pausing,
    Suspended, // paused by the runtime, or suspended with a snapshot
    Resuming,
    Finishing, // deleting
    Gone, // deleted, lost
    Failed,
    Unknown,
};
enum class AgentState { None, Idle, Running, Waiting, Stopping, Stopped, Exited, Failed, Unknown };
enum class FileStatus { Added, Modified, Deleted, Renamed, TypeChange, Conflicted, Untracked };

struct Progress
{
    QString operation; // "open", "save", "sync"; empty when idle
    QString phase;
    qint64 bytes = 0;
    qint64 totalBytes = -1; // -1: not known
    bool cancellable = false; // POST /v1/sessions/{id}/cancel would stop it now (safely, undoing it)
    bool active() const { return !operation.isEmpty(); }
};

struct ConflictedFile
{
    QString path;
    int regions = 0;
    bool operator==(const ConflictedFile &) const = default;
};

// How a session's last save ended, as its record keeps it.
struct SaveOutcome
{
    QDateTime at; // invalid: no save yet
    QString outcome; // "published", "nothing_to_save", "moved_on", or an error code
    QString errorMessage;
    bool published = false;
    bool completedMerge = false;
    QStringList files;
    qint64 segmentBytes = 0;
    QList<ConflictedFile> conflicts; // outcome "conflict"
    bool operator==(const SaveOutcome &) const = default;
};

struct SyncOutcome
{
    QDateTime at;
    QString outcome; // "up_to_date", "fast_forwarded", "merged", "conflicted", "conflicts_left", "conflict", or an error code
    QString errorMessage;
    QList<ConflictedFile> conflicts;
    qint64 bytesDownloaded = 0;
    bool operator==(const SyncOutcome &) const = default;
};

struct Agent
{
    AgentState state = AgentState::None;
    QString command;
    int restarts = 0;
};

struct Sandbox
{
    SandboxState state = SandboxState::None;
    QString stateName; // as the engine says it
    QString reason;
    QString id;
    Agent agent;
};

// What a snapshot counted for an idle session.
struct PendingChanges
{
    int files = 0;
    int conflicted = 0;
    int ahead = 0;
    int behind = 0;
    bool mergeInProgress = false;
};

struct Session
{
    QString id;
    QString workspaceId;
    QString workspaceName;
    QString branch;
    QString workTree;
    SessionState state = SessionState::Unknown;
    QString reason;
    Progress progress;
    SaveOutcome lastSave;
    SyncOutcome lastSync;
    Sandbox sandbox;
    QStringList conflicts; // the paths the newer of the last save and sync left in conflict
    std::optional<PendingChanges> pending;
    int queued = 0;
};

struct FileChange
{
    QString path;
    QString oldPath; // renamed
    FileStatus status = FileStatus::Modified;
};

struct Changes
{
    QList<FileChange> files;
    int ahead = 0;
    int behind = 0;
    bool mergeInProgress = false;
    bool refreshed = false;
    bool movedOn = false; // refreshed: the hub has a newer manifest
};

struct FileDiff
{
    QString text;
    bool binary = false;
    bool truncated = false;
};

struct CacheEntry
{
    QString workspaceId;
    QString name;
    qint64 bytes = 0;
    qint64 generation = 0;
    QDateTime lastUsed;
    bool inUse = false;
    bool hasSpare = false;
    qint64 spareBytes = 0;
};

struct Cache
{
    bool available = false; // false: the engine has no sessions module (not running)
    QList<CacheEntry> workspaces;
    qint64 bytes = 0;
    qint64 maxBytes = 0;
    QString directory;
    bool spareSessions = false;
    qint64 spareBytes = 0;
};

struct Runtime
{
    QString state; // "absent", "starting", "healthy", ... (runtimeStateName)
    QString reason;
    QString pin, image, execdImage, digest, container, containerId, containerState, url, sessionDirectory;
    int restarts = 0;
    bool standin = false;
    QDateTime startedAt;
    bool healthy() const { return state == QLatin1String("healthy"); }
    bool operator==(const Runtime &) const = default;
};

struct Pairing
{
    bool paired = false;
    QString state; // "idle", "requesting", "waiting_for_approval", "approved", "denied", "expired", ...
    QString userCode;
    QString verificationUri;
    QString verificationUriComplete;
    QDateTime expiresAt;
    QString reason;
    QString serverId;
};

// A health warning as GET /v1/status carries it (docs/architecture.md, "Health warnings").
struct Warning
{
    QString code;
    bool error = false; // severity "error"; else "warning"
    QString message;
    QDateTime since;
    bool operator==(const Warning &) const = default;
};

struct Status
{
    EngineState state = EngineState::Stopped;
    QString reason;
    bool paired = false;
    bool connected = true; // false: the member disconnected it (POST /v1/tunnel)
    QString hub;
    QString serverId, serverName, hostName;
    QString version;
    qint64 pid = 0;
    QString home, socket;
    QString credentialStore; // describes where the credentials are
    QString credentialStoreError; // set when they could not be read (a locked keychain, ...)
    QString credentialStoreProblem; // a code for that error, when the engine knows one
    QList<Warning> warnings; // shown now, oldest first
};

struct Snapshot
{
    QString lastEventId;
    Status status;
    Pairing pairing;
    Runtime runtime;
    QList<Session> sessions;
    Cache cache;
    QList<ActivityEntry> activity;
};

Status statusFromJson(const QJsonObject &o);
QList<Warning> warningsFromJson(const QJsonArray &a);
Pairing pairingFromJson(const QJsonObject &o);
Runtime runtimeFromJson(const QJsonObject &o);
Session sessionFromJson(const QJsonObject &o);
Progress progressFromJson(const QJsonObject &o);
Changes changesFromJson(const QJsonObject &o);
FileDiff diffFromJson(const QJsonObject &o);
Cache cacheFromJson(const QJsonObject &o);
ActivityEntry activityFromJson(const QJsonObject &o);
Snapshot snapshotFromJson(const QJsonObject &o);

SessionState sessionStateFromName(const QString &name);
SandboxState sandboxStateFromName(const QString &name);
AgentState agentStateFromName(const QString &name);
FileStatus fileStatusFromName(const QString &name);

// A new session's id, as a client names the session it asks for (POST /v1/sessions and
// /v1/sessions/launch take `session`) to follow its progress from the first event: "s" and 12
// random hex digits, the form the engine gives its own.
QString newSessionId();

} // namespace isolation::api

Q_DECLARE_METATYPE(isolation::api::Session)
