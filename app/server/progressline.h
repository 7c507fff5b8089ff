// The progress of a verb that takes long (save, sync, session new, launch, resume, suspend, restore,
// a workspace's bundle or export): the engine's events for the session (session.progress, and the
// sandbox's state as session.changed reports it) or the workspace (workspace.progress), shown
// while the LocalAPI call runs. On a terminal, one line on stderr redrawn in
// place (operation, phase, bytes done and total, rate, time left, time so far) and cleared at the
// end; with --json --progress, each event as a line of JSON on stdout before the result; otherwise
// nothing at all (a pipe or a file gets only the result).
#pragma once

#include "core/result.h"
#include "core/transferrate.h"
#include "localapi/localapiclient.h"

#include <QCommandLineOption>
#include <QJsonObject>
#include <QString>

namespace isolation {

// What the line shows, from the events as they come; pure, so it is tested without a terminal.
class ProgressLine
{
public:
    // `progress`: a session.progress event's data. `nowMs`: a monotonic clock reading.
    void update(const QJsonObject &progress, qint64 nowMs);
    // `session`: a session.added or session.changed event's data (the session as the LocalAPI
    // shows it): while its sandbox is between states (building, creating, starting, preparing,
    // pausing, resuming, deleting, adopting), the line says which, with the reason (a build's
    // latest line, say), when no save, sync or open is running.
    void updateSession(const QJsonObject &session, qint64 nowMs);
    // The line for a terminal `columns` wide (never wider than columns - 1); empty while nothing
    // runs.
    QString render(qint64 nowMs, int columns) const;
    bool isIdle() const { return m_operation.isEmpty() && m_activity.isEmpty(); }

    // Bytes a second over the last few seconds of the phase; -1 while not known.
    double rate() const;

private:
    QString m_operation;
    QString m_phase;
    qint64 m_bytes = 0;
    qint64 m_totalBytes = -1;
    qint64 m_startedMs = -1; // the operation's start, as this client saw it
    TransferRate m_rate; // of this phase
    QString m_sandboxState; // a state between states, or empty
    QString m_activity; // what the sandbox does, in words; empty when it is settled
    qint64 m_activityStartedMs = -1;
};

namespace progress {

enum class Mode {
    Quiet, // the call only
    Line, // a line on stderr (a terminal)
    Json, // JSON lines on stdout
};

// --progress, for the verbs that show progress.
QCommandLineOption option();

// Line when stderr is a terminal (and TERM is not "dumb") and the output is not JSON; Json when
// --json and --progress; otherwise Quiet.
Mode modeFor(bool json, bool jsonProgress);

// What Ctrl-C (SIGINT) does while the call runs.
enum class Interrupt {
    Exit, // the process ends at once (the engine goes on with the operation)
    Cancel, // the first asks the engine to cancel the session's operation (POST
            // /v1/sessions/{id}/cancel), or with Subject::Workspace the workspace's exports (POST
            // /v1/workspaces/{w}/cancel), and waits for the answer (Cancelled: exit code 130); a
            // second ends the process at once
};

// Whose progress a call shows.
enum class Subject {
    Session, // session.progress (and the sandbox's states) of the session with that id
    Workspace, // workspace.progress (an export) of the workspace with that id or name
};

// `client.call(method, path, body)` on a worker thread while this thread shows the progress of
// `subject` (a session id, or with Subject::Workspace a workspace's id or name) as `mode` says,
// and Ctrl-C does what `interrupt` says.
Result<QJsonObject, LocalApiError> call(const LocalApiClient &client, const QByteArray &method, const QString &path,
    const QJsonObject &body, const QString &subject, Mode mode, Interrupt interrupt = Interrupt::Exit,
    Subject kind = Subject::Session);

} // namespace progress

} // namespace isolation
