// Runs a session's agent command in its sandbox through execd and keeps it running: its output
// streams out line by line, an unexpected end (a non-zero status, a crash, a lost stream) restarts
// it after a full-jitter backoff, and stop() interrupts it for good (suspend, finish). Time comes
// from an injected Clock and Timer, so tests drive the restarts.
#pragma once

#include "sandbox/sandboxrecord.h"
#include "core/backoff.h"
#include "runtime/commandstream.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <deque>
#include <functional>

namespace isolation {

class ExecdClient;
class SecretVault;
class Timer;

struct AgentSpec
{
    AgentSpec() = default;
    AgentSpec(QString shellCommand) // NOLINT(google-explicit-constructor): {"command"} reads well
        : command(std::move(shellCommand))
    { }

    QString command; // run by `sh -c` inside the sandbox
    QString cwd = QStringLiteral("/workspace");
    QHash<QString, QString> env; // not secret; the vault's secrets are added for every start
    // Without a vault (after an engine restart, which took the values with it): the secrets the
    // launch delivered as files into this tmpfs directory of the sandbox are put in the agent's
    // environment by the shell that starts it. Empty: none.
    QString secretsDirectory;
};

struct AgentPolicy
{
    Backoff::Policy backoff {std::chrono::milliseconds(1000), std::chrono::milliseconds(60000),
        std::chrono::milliseconds(60000)}; // a run of resetAfter or longer forgives earlier failures
    int maxFailures = 8; // unexpected ends in a row before Failed
    int stopTimeoutMs = 10000; // after that, stop() closes the stream and calls it stopped
    int adoptedPollMs = 5000; // how often execd is asked whether an adopted run still runs
    int keptLines = 500; // recentLines()
    qsizetype maxLineBytes = 64 * 1024; // longer lines are cut into pieces
    std::function<double()> random01; // the backoff's jitter; empty: QRandomGenerator
};

class AgentSupervisor final : public QObject
{
    Q_OBJECT
    Q_PROPERTY(isolation::AgentState state READ state NOTIFY stateChanged)
public:
    // `execd` and `secrets` (may be null) must outlive this object, as must `clock` and `timer`
    // (the restart delay; a SystemTimer in the engine, a ManualTimer in tests).
    AgentSupervisor(ExecdClient *execd, AgentSpec spec, const SecretVault *secrets, const Clock &clock, Timer &timer,
        AgentPolicy policy = {}, QObject *parent = nullptr);
    ~AgentSupervisor() override; // closes the stream; the agent is not interrupted (call stop() first)

    // Idle → Running. Again after Exited or Failed: a fresh start with the failures forgotten.
    void start();
    // The sandbox's execd changed (a suspended session resumed in a new sandbox). Only while no
    // run is going (Idle, Stopped, Exited, Failed).
    void setExecd(ExecdClient *execd);
    // Takes charge of run `commandId`, which an earlier run of the engine started (Idle → Running):
    // its output went to that engine and is not streamed here; execd is asked every adoptedPollMs
    // whether it still runs, and its end is handled like any run's end (restarted after a backoff
    // unless it exited with status 0). A run execd no longer knows has ended.
    void adopt(const QString &commandId);
    // Interrupts the agent and cancels any pending restart; stopped() follows once it is gone.
    void stop();

    AgentState state() const { return m_state; }
    int runs() const { return m_runs; } // starts so far, restarts included
    int restarts() const { return m_runs > 0 ? m_runs - 1 : 0; }
    int failures() const { return m_failures; } // unexpected ends in a row
    int lastExitCode() const { return m_lastExitCode; }
    QString commandId() const; // execd's id of the current run
    bool adopted() const { return !m_adopted.isEmpty(); } // the current run is one it adopted
    QString reason() const { return m_reason; } // why it is Waiting, Exited or Failed
    // The last lines it printed ("out: ..." / "err: ..."), oldest first.
    QStringList recentLines() const;

Q_SIGNALS:
    void stateChanged(isolation::AgentState state);
    void line(isolation::CommandStream::Channel channel, const QString &text);
    void runEnded(int exitCode); // every run's end (-1: the stream was lost)
    void runStarted(const QString &commandId); // execd named a run (adopted ones included)
    void restartScheduled(int failures, qint64 delayMs);
    void stopped();

private:
    void launch();
    void onOutput(CommandStream::Channel channel, const QByteArray &data);
    void onFinished();
    void ended(int exitCode, const std::optional<ExecdError> &failure);
    void checkAdopted();
    void flush(CommandStream::Channel channel, bool all);
    void emitLine(CommandStream::Channel channel, const QByteArray &bytes);
    void setState(AgentState state, const QString &reason = {});
    void finishStop();

    ExecdClient *m_execd;
    AgentSpec m_spec;
    const SecretVault *m_secrets;
    Timer &m_timer;
    AgentPolicy m_policy;
    Backoff m_backoff;
    QTimer m_stopTimer;
    QPointer<CommandStream> m_stream;
    QString m_adopted; // the run adopted from an earlier engine, while it runs
    AgentState m_state = AgentState::Idle;
    QString m_reason;
    int m_runs = 0;
    int m_failures = 0;
    int m_lastExitCode = 0;
    QByteArray m_pending[2]; // partial lines per channel
    std::deque<QString> m_recent;
};

} // namespace isolation
