// What a session keeps of its sandbox (session.json; the LocalAPI shows it as "sandbox"): written
// by SessionSandboxes as the sandbox goes through its states, read back after a restart to adopt,
// resume or delete it. The states of a sandbox and of its agent live here, with their stable names,
// so that the session record (sessions/sessionrecord.h) and the code that drives sandboxes share
// one list.
#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace isolation {

enum class SandboxState {
    Idle, // nothing launched yet
    Building, // devcontainer.json's image is being built (the reason shows Docker's latest line)
    Creating, // the create request is with the lifecycle server
    Starting, // created; waiting for it to run and for execd to answer
    Preparing, // execd answers: write check, secrets delivered, postCreateCommand running
    Running, // ready: commands and the agent may run
    Pausing,
    Paused, // frozen by the runtime (suspend); memory, tmpfs secrets included, stays as it was
    Resuming,
    Deleting,
    Deleted, // gone; launch() may start again
    Failed, // the launch failed; the sandbox it made (if any) was deleted
    Adopting, // launched by an earlier run of the engine; waiting for the runtime to take it over
    Suspended, // saved to a snapshot and deleted (or a resume failed): resume launches it again
    Lost, // an earlier run's sandbox the runtime no longer has
};

enum class AgentState {
    Idle, // not started yet
    Running, // execd runs it; its output streams
    Waiting, // it ended unexpectedly; a restart is due after a backoff delay
    Stopping, // stop() asked execd to interrupt it
    Stopped, // stopped on request: never restarted
    Exited, // it ended by itself with status 0: its work is done, not restarted
    Failed, // it failed too often in a row (or execd refused it): given up
};

// Stable identifiers for JSON and the CLI ("running", "suspended", ...), and back.
QString sandboxStateName(SandboxState state);
std::optional<SandboxState> sandboxStateFromName(const QString &name);
QString agentStateName(AgentState state);
std::optional<AgentState> agentStateFromName(const QString &name);

struct AgentRecord
{
    QString command;
    AgentState state = AgentState::Idle;
    int restarts = 0;
    QString commandId; // execd's id of its current run (empty: none)
};

struct ClonedRepository
{
    QString url; // without user information
    QString directory; // worktree-relative
    QString head; // the commit checked out
};

struct SandboxRecord
{
    SandboxState state = SandboxState::Idle;
    QString reason; // why it is in that state, when it is worth saying
    QString id; // the runtime's sandbox id (empty while none exists)
    QString image;
    QDateTime launched;
    bool control = false; // it has the session's control mount
    QList<ClonedRepository> repositories;
    QString snapshot; // suspended: the snapshot to resume from
    std::optional<AgentRecord> agent;

    QJsonObject toJson() const;
    // nullopt when `o` is not a sandbox record (empty, or a state this version does not know).
    static std::optional<SandboxRecord> fromJson(const QJsonObject &o);
    bool operator==(const SandboxRecord &other) const { return toJson() == other.toJson(); }
};

} // namespace isolation

Q_DECLARE_METATYPE(isolation::SandboxState)
Q_DECLARE_METATYPE(isolation::AgentState)
