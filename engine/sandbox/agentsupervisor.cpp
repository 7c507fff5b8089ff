#include "agentsupervisor.h"

#include "core/logging.h"
#include "core/timer.h"
#include "runtime/execdclient.h"
#include "sandboxerror.h"
#include "secrets/secretvault.h"

namespace isolation {

AgentSupervisor::AgentSupervisor(ExecdClient *execd, AgentSpec spec, const SecretVault *secrets, const Clock &clock,
    Timer &timer, AgentPolicy policy, QObject *parent)
    : QObject(parent)
    , m_execd(execd)
    , m_spec(std::move(spec))
    , m_secrets(secrets)
    , m_clock(clock)
    , m_timer(timer)
    , m_policy(policy)
    , m_backoff(policy.backoff, clock, policy.random01)
{
    m_stopTimer.setSingleShot(true);
    connect(&m_stopTimer, &QTimer::timeout, this, [this] {
        qCWarning(lcSandbox) << "the agent did not end within" << m_policy.stopTimeoutMs << "ms of its interrupt";
        if (m_stream)
            m_stream->abort(); // onFinished() completes the stop
        else
            finishStop();
    });
}

AgentSupervisor::~AgentSupervisor()
{
    m_timer.stop(); // its callback points at this object
    if (m_stream)
        m_stream->disconnect(this);
}

QString AgentSupervisor::commandId() const
{
    return m_stream ? m_stream->id() : m_adopted;
}

QStringList AgentSupervisor::recentLines() const
{
    QStringList lines;
    for (const AgentEntry &e : m_recent) {
        if (e.kind == AgentEntry::Kind::Out)
            lines << QStringLiteral("out: ") + e.text;
        else if (e.kind == AgentEntry::Kind::Err)
            lines << QStringLiteral("err: ") + e.text;
    }
    return lines;
}

QList<AgentEntry> AgentSupervisor::entriesAfter(quint64 after) const
{
    // Seqs are consecutive: the first one wanted is found by arithmetic, not by a search.
    QList<AgentEntry> out;
    if (m_recent.empty() || after >= m_recent.back().seq)
        return out;
    const quint64 first = m_recent.front().seq;
    for (auto it = m_recent.begin() + qsizetype(after >= first ? after - first + 1 : 0); it != m_recent.end(); ++it)
        out.append(*it);
    return out;
}

AgentViewState AgentSupervisor::view(quint64 after) const
{
    AgentViewState v;
    v.state = agentStateName(m_state);
    v.reason = m_reason;
    v.runs = m_runs;
    v.restarts = restarts();
    v.lastExitCode = m_lastExitCode;
    v.lastSeq = lastSeq();
    const QList<AgentEntry> entries = entriesAfter(after);
    v.truncated = !entries.isEmpty() && entries.first().seq > after + 1;
    v.entries.reserve(entries.size());
    for (const AgentEntry &e : entries) {
        static const QString kinds[]
            = {QStringLiteral("out"), QStringLiteral("err"), QStringLiteral("in"), QStringLiteral("state")};
        v.entries.append(AgentViewEntry {e.seq, e.run, kinds[int(e.kind)], e.text, e.atMs});
    }
    return v;
}

void AgentSupervisor::record(AgentEntry::Kind kind, const QString &text)
{
    m_recent.push_back(AgentEntry {m_nextSeq++, m_runs, kind, text, m_clock.unixSeconds() * 1000});
    while (m_recent.size() > size_t(qMax(1, m_policy.keptLines)))
        m_recent.pop_front();
    Q_EMIT entryAdded(m_recent.back());
}

void AgentSupervisor::sendInput(const QString &text, std::function<void(Result<void, SandboxError>)> done)
{
    if (m_state != AgentState::Running) {
        done(SandboxError::refused(
            QStringLiteral("the agent is %1, not running: nothing reads its input now").arg(agentStateName(m_state))));
        return;
    }
    if (text.contains(QChar(0)) || text.toUtf8().size() > m_policy.maxInputBytes) {
        done(SandboxError::refused(
            QStringLiteral("an input holds no NUL and at most %1 bytes").arg(m_policy.maxInputBytes)));
        return;
    }
    // The text goes in the command's environment, not in the command: nothing in it is ever
    // interpreted by a shell. Opened read-write, the FIFO never blocks the open, and execd's
    // timeout ends a write that a full pipe (an agent that does not read) would hold up.
    const QString command
        = QStringLiteral("__in='%1'; [ -p \"$__in\" ] || { echo 'the agent has no input FIFO' >&2; exit 3; }; "
                         "printf '%s\\n' \"$ISOLATION_AGENT_INPUT\" 1<>\"$__in\"")
              .arg(m_spec.inputFifo);
    const CommandRequest request {command, m_spec.cwd, {{QStringLiteral("ISOLATION_AGENT_INPUT"), text}}, 10000};
    // In the transcript before the agent can answer it; a failure is recorded after it.
    record(AgentEntry::Kind::In, text);
    QPointer<AgentSupervisor> self(this);
    m_execd->runCommand(request, [self, done = std::move(done)](Result<CommandOutput, ExecdError> r) {
        if (!self)
            return;
        const auto failed = [&self, &done](const SandboxError &e) {
            self->record(AgentEntry::Kind::State, e.message);
            done(e);
        };
        if (!r) {
            failed(SandboxError::unavailable(
                QStringLiteral("the input did not reach the agent: %1").arg(r.error().message)));
            return;
        }
        if (r.value().exitCode != 0) {
            failed(SandboxError::failed(QStringLiteral("the input did not reach the agent: %1")
                                            .arg(QString::fromUtf8(r.value().stdErr).trimmed())));
            return;
        }
        done({});
    });
}

void AgentSupervisor::start()
{
    if (m_state == AgentState::Running || m_state == AgentState::Waiting || m_state == AgentState::Stopping)
        return;
    m_failures = 0;
    m_backoff.reset();
    launch();
}

void AgentSupervisor::setExecd(ExecdClient *execd)
{
    Q_ASSERT(m_state != AgentState::Running && m_state != AgentState::Stopping && m_state != AgentState::Waiting);
    m_execd = execd;
}

void AgentSupervisor::adopt(const QString &commandId)
{
    if (m_state != AgentState::Idle || commandId.isEmpty()) {
        start();
        return;
    }
    m_adopted = commandId;
    ++m_runs;
    m_backoff.connected();
    setState(AgentState::Running,
        QStringLiteral("adopted run %1, started before the engine restarted (its output is not shown)").arg(commandId));
    Q_EMIT runStarted(commandId);
    checkAdopted();
}

void AgentSupervisor::checkAdopted()
{
    if (m_adopted.isEmpty())
        return;
    QPointer<AgentSupervisor> self(this);
    const QString id = m_adopted;
    m_execd->commandStatus(id, [self, id](Result<CommandStatus, ExecdError> r) {
        if (!self || self->m_adopted != id)
            return;
        const bool unreachable = !r && r.error().code == ExecdError::Code::Unreachable;
        if ((r && r.value().running) || unreachable) {
            // Interrupted, it is expected to end soon: looked at again sooner.
            const int ms = self->m_state == AgentState::Stopping ? qMin(500, self->m_policy.adoptedPollMs)
                                                                 : self->m_policy.adoptedPollMs;
            self->m_timer.start(std::chrono::milliseconds(ms), [self] {
                if (self)
                    self->checkAdopted();
            });
            return;
        }
        self->m_adopted.clear();
        if (r) {
            self->ended(r.value().exitCode.value_or(-1), std::nullopt);
            return;
        }
        // execd does not know it (the sandbox was restarted): it ended, how is unknown.
        self->ended(
            -1, ExecdError {ExecdError::Code::Unreachable, 0, QStringLiteral("execd no longer knows run %1").arg(id)});
    });
}

void AgentSupervisor::launch()
{
    CommandRequest request {m_spec.command, m_spec.cwd, m_spec.env, std::nullopt};
    if (!m_spec.inputFifo.isEmpty()) {
        // Standard input from the FIFO, opened read-write so that the open does not wait for a
        // writer and the agent never reads an end of input between two messages.
        request.command = QStringLiteral("__in='%1'; if mkdir -p \"${__in%/*}\" 2>/dev/null && "
                                         "{ [ -p \"$__in\" ] || mkfifo -m 600 \"$__in\"; } 2>/dev/null; "
                                         "then exec 0<>\"$__in\"; fi; unset __in\n")
                              .arg(m_spec.inputFifo)
            + request.command;
    }
    if (!m_secrets && !m_spec.secretsDirectory.isEmpty()) {
        // Each regular file with a variable's name becomes that variable, its bytes exactly
        // (trailing newlines kept); the values are read by the shell inside the sandbox and
        // never pass through the engine.
        request.command
            = QStringLiteral(
                  "for __f in '%1'/*; do __n=${__f##*/}; case $__n in ''|[0-9]*|*[!A-Za-z0-9_]*) continue ;; esac; "
                  "[ -f \"$__f\" ] || continue; __v=$(cat \"$__f\"; printf x); export \"$__n=${__v%x}\"; done; "
                  "unset __f __n __v\n")
                  .arg(m_spec.secretsDirectory)
            + request.command;
    }
    if (m_secrets) {
        const QHash<QString, QString> secrets = m_secrets->environment();
        for (auto it = secrets.begin(); it != secrets.end(); ++it)
            request.envs.insert(it.key(), it.value());
    }
    m_stream = m_execd->startCommand(request, this);
    request.envs.clear();
    connect(m_stream, &CommandStream::output, this, &AgentSupervisor::onOutput);
    connect(m_stream, &CommandStream::finished, this, &AgentSupervisor::onFinished);
    connect(m_stream, &CommandStream::started, this, [this](const QString &id) {
        qCInfo(lcSandbox).noquote() << QStringLiteral("agent run %1 started as %2").arg(m_runs).arg(id);
        Q_EMIT runStarted(id);
        if (m_state == AgentState::Stopping)
            stop(); // stop() came before execd named the command
    });
    ++m_runs;
    m_backoff.connected();
    setState(AgentState::Running);
}

void AgentSupervisor::stop()
{
    switch (m_state) {
    case AgentState::Running: {
        setState(AgentState::Stopping, QStringLiteral("stopping on request"));
        m_stopTimer.start(m_policy.stopTimeoutMs);
        [[fallthrough]];
    }
    case AgentState::Stopping: {
        const QString id = commandId();
        if (id.isEmpty())
            return; // the started() handler comes back here
        QPointer<AgentSupervisor> self(this);
        m_execd->interrupt(id, [self](Result<bool, ExecdError> r) {
            if (!self)
                return;
            if (r.ok()) {
                if (self->adopted())
                    self->checkAdopted(); // no stream tells the end of an adopted run: execd does
                return;
            }
            // Already gone (execd does not know the id any more) or execd unreachable: stop reading.
            qCInfo(lcSandbox).noquote() << "interrupting the agent:" << r.error().message;
            if (self->m_stream)
                self->m_stream->abort();
            else if (self->adopted() && self->m_state == AgentState::Stopping)
                self->finishStop();
        });
        return;
    }
    case AgentState::Waiting:
        m_timer.stop();
        [[fallthrough]];
    case AgentState::Idle:
    case AgentState::Stopped:
    case AgentState::Exited:
    case AgentState::Failed:
        finishStop();
        return;
    }
}

void AgentSupervisor::finishStop()
{
    m_stopTimer.stop();
    m_timer.stop(); // an adopted run's next status check
    m_adopted.clear();
    setState(AgentState::Stopped, QStringLiteral("stopped on request"));
    Q_EMIT stopped();
}

void AgentSupervisor::onOutput(CommandStream::Channel channel, const QByteArray &data)
{
    m_pending[int(channel)] += data;
    flush(channel, false);
}

void AgentSupervisor::flush(CommandStream::Channel channel, bool all)
{
    QByteArray &pending = m_pending[int(channel)];
    qsizetype at = 0;
    while ((at = pending.indexOf('\n')) >= 0 || pending.size() > m_policy.maxLineBytes) {
        const qsizetype cut = at >= 0 && at <= m_policy.maxLineBytes ? at : m_policy.maxLineBytes;
        emitLine(channel, pending.left(cut));
        pending.remove(0, at >= 0 && at <= m_policy.maxLineBytes ? cut + 1 : cut);
    }
    if (all && !pending.isEmpty())
        emitLine(channel, std::exchange(pending, {}));
}

void AgentSupervisor::emitLine(CommandStream::Channel channel, const QByteArray &bytes)
{
    QString text = QString::fromUtf8(bytes.endsWith('\r') ? bytes.chopped(1) : bytes);
    record(channel == CommandStream::Channel::StdOut ? AgentEntry::Kind::Out : AgentEntry::Kind::Err, text);
    Q_EMIT line(channel, text);
}

void AgentSupervisor::onFinished()
{
    flush(CommandStream::Channel::StdOut, true);
    flush(CommandStream::Channel::StdErr, true);
    CommandStream *stream = m_stream;
    m_stream = nullptr;
    if (!stream)
        return;
    stream->deleteLater();
    const std::optional<ExecdError> failure = stream->failure();
    ended(failure ? -1 : stream->exitCode(), failure);
}

void AgentSupervisor::ended(int exitCode, const std::optional<ExecdError> &failure)
{
    m_lastExitCode = exitCode;
    m_backoff.disconnected();
    if (m_backoff.attempts() == 0)
        m_failures = 0; // it stayed up long enough: earlier failures are forgiven
    Q_EMIT runEnded(m_lastExitCode);

    if (m_state == AgentState::Stopping) {
        finishStop();
        return;
    }
    if (failure && failure->code == ExecdError::Code::Rejected && failure->status >= 400 && failure->status < 500) {
        setState(AgentState::Failed, QStringLiteral("execd refused the agent's command: %1").arg(failure->message));
        return;
    }
    if (!failure && m_lastExitCode == 0) {
        setState(AgentState::Exited, QStringLiteral("the agent exited with status 0"));
        return;
    }
    const QString why
        = failure ? failure->message : QStringLiteral("the agent exited with status %1").arg(m_lastExitCode);
    if (++m_failures >= m_policy.maxFailures) {
        setState(AgentState::Failed,
            QStringLiteral("%1; it ended %2 times in a row, not restarted again").arg(why).arg(m_failures));
        return;
    }
    const std::chrono::milliseconds delay = m_backoff.nextDelay();
    setState(AgentState::Waiting, QStringLiteral("%1; restarting in %2 ms").arg(why).arg(delay.count()));
    Q_EMIT restartScheduled(m_failures, delay.count());
    m_timer.start(delay, [this] {
        if (m_state == AgentState::Waiting)
            launch();
    });
}

void AgentSupervisor::setState(AgentState state, const QString &reason)
{
    m_reason = reason;
    if (state == m_state)
        return;
    m_state = state;
    record(AgentEntry::Kind::State,
        reason.isEmpty() ? agentStateName(state)
                         : agentStateName(state) + QStringLiteral(": ") + logging::redact(reason));
    qCInfo(lcSandbox).noquote() << QStringLiteral("agent %1%2")
                                       .arg(agentStateName(state),
                                           reason.isEmpty() ? QString()
                                                            : QStringLiteral(": ") + logging::redact(reason));
    Q_EMIT stateChanged(state);
}

} // namespace isolation
