// Runs a session's agent command in its sandbox through execd and keeps it running: its output
// streams out line by line, an unexpected end (a non-zero status, a crash, a lost stream) restarts
// it after a full-jitter backoff, and stop() interrupts it for good (suspend, finish). Its standard
// input is a FIFO in the sandbox that sendInput() writes to, and a numbered transcript (output,
// input, state changes) feeds the agent conversation view. Time comes from an injected Clock and
// Timer, so tests drive the restarts.
#pragma once

#include "core/backoff.h"
#include "runtime/commandstream.h"
#include "sandbox/sandboxerror.h"
#include "sandbox/sandboxrecord.h"
#include "views/agentviews.h"

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
    // The FIFO in the sandbox that is the agent's standard input (made by the shell that starts
    // it, mode 0600; left out when it cannot be made: the agent then reads an empty input).
    QString inputFifo = QStringLiteral("/tmp/.isolation-agent/input");
};

// One entry of the agent's transcript, as the conversation view shows it.
struct AgentEntry
{
    enum class Kind { Out, Err, In, State };
    quint64 seq = 0; // 1, 2, ...: one more for every entry
    int run = 0; // the run current when it was recorded (1 for the first start)
    Kind kind = Kind::Out;
    QString text; // a line without its end; In: what was sent; State: the state and its reason
    qint64 atMs = 0; // unix time in milliseconds
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
    qsizetype maxInputBytes = 16 * 1024; // sendInput() refuses more (a pipe holds 64 KiB)
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
    // The kept transcript entries whose seq is above `after` (at most keptLines of them: older
    // ones are gone), oldest first; lastSeq() is the newest entry's (0: none yet).
    QList<AgentEntry> entriesAfter(quint64 after) const;
    quint64 lastSeq() const { return m_nextSeq - 1; }
    // What the agent conversation view shows of it: its state and the entries after `after`
    // (the command is left for the caller, who knows what was asked for).
    AgentViewState view(quint64 after) const;

    // Writes `text` and a newline to the agent's standard input (through execd, into the FIFO;
    // never on a command line). Refused unless it is Running, for more than maxInputBytes or for a
    // NUL. `done` runs once, unless this object goes first.
    void sendInput(const QString &text, std::function<void(Result<void, SandboxError>)> done);

Q_SIGNALS:
    void stateChanged(isolation::AgentState state);
    void line(isolation::CommandStream::Channel channel, const QString &text);
    void runEnded(int exitCode); // every run's end (-1: the stream was lost)
    void runStarted(const QString &commandId); // execd named a run (adopted ones included)
    void entryAdded(const isolation::AgentEntry &entry); // the transcript grew
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
    void record(AgentEntry::Kind kind, const QString &text);
    void finishStop();

    ExecdClient *m_execd;
    AgentSpec m_spec;
    const SecretVault *m_secrets;
    const Clock &m_clock;
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
    std::deque<AgentEntry> m_recent;
    quint64 m_nextSeq = 1;
};

} // namespace isolation
