// SessionSandboxes: a session's agent (started, restored after an engine restart, its state on
// the LocalAPI) and the control directory through which its sandbox asks for saves.
#include "sessionsandboxes.h"

#include "sessionactivity.h"
#include "sessionjson.h"
#include "sessionsandboxes_internal.h"

#include "sandbox/agentsupervisor.h"
#include "sandbox/sandboxcontrol.h"
#include "sandbox/sandboxlauncher.h"

#include "core/timer.h"
#include "runtime/lifecycleclient.h"
#include "secrets/secretvault.h"
#include "sessions/sessionmanager.h"

#include <QJsonArray>
#include <QPointer>

namespace isolation {

void SessionSandboxes::restoreAgent(Session *session)
{
    const std::optional<SandboxRecord> &sandbox = session->record().sandbox;
    const AgentRecord recorded = sandbox && sandbox->agent ? *sandbox->agent : AgentRecord {};
    const QString command = recorded.command;
    const auto it = m_entries.find(session->id());
    if (command.isEmpty() || it == m_entries.end())
        return;
    makeAgent(session, command);
    // A paused sandbox's agent was stopped by the suspend: resume starts it. One that was meant to
    // run is taken over where execd still runs it, else started again.
    if (it->second.launcher->state() != SandboxState::Running
        || (recorded.state != AgentState::Running && recorded.state != AgentState::Waiting))
        return;
    const QString commandId = recorded.commandId;
    qCInfo(lcSessionSandboxes) << "session" << session->id()
                               << (commandId.isEmpty() ? "starts its agent again" : "takes over its agent's run")
                               << commandId;
    it->second.agent->adopt(commandId); // an empty id starts it
}

bool SessionSandboxes::startControl(Session *session, Entry &entry)
{
    entry.control = std::make_unique<SandboxControl>(session->directory() + QStringLiteral("/control"));
    QString why;
    if (!entry.control->start(&why)) {
        qCWarning(lcSessionSandboxes) << "session" << session->id() << "has no way to ask for saves:" << why;
        entry.control.reset();
        return false;
    }
    const QString id = session->id();
    connect(entry.control.get(), &SandboxControl::saveRequested, this,
        [this, id](const QString &request, const QString &message) { saveFromSandbox(id, request, message); });
    connect(entry.control.get(), &SandboxControl::syncRequested, this,
        [this, id](const QString &request, bool resolve) { syncFromSandbox(id, request, resolve); });
    return true;
}

std::pair<Session *, SandboxControl *> SessionSandboxes::askedFromSandbox(
    const QString &sessionId, const QString &requestId)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.control)
        return {};
    SandboxControl *control = it->second.control.get();
    Session *session = m_sessions->session(sessionId);
    if (!session) {
        control->answer(requestId, SandboxControl::Outcome::Refused, tr("the session is gone"));
        return {};
    }
    return {session, control};
}

void SessionSandboxes::saveFromSandbox(const QString &sessionId, const QString &requestId, const QString &message)
{
    const auto [session, control] = askedFromSandbox(sessionId, requestId);
    if (!session)
        return;
    qCInfo(lcSessionSandboxes) << "session" << sessionId << "asked from its sandbox for a save";
    QPointer<SandboxControl> c(control);
    QPointer<Session> s(session);
    ActivityLog *log = m_sessions->activity();
    session->save({}, message.isEmpty() ? tr("Saved from the sandbox") : message,
        [c, s, log, sessionId, requestId](Result<SaveReport, SessionError> r) {
            if (s)
                recordSave(log, *s, Door::Agent, r);
            if (!c)
                return;
            using Outcome = SandboxControl::Outcome;
            if (r && r.value().published) {
                c->answer(requestId, Outcome::Saved,
                    QStringLiteral("%1 %2").arg(QString::fromLatin1(r.value().commit.left(12)), r.value().saveId));
            } else if (r) {
                c->answer(requestId, Outcome::Unchanged, tr("nothing to save"));
            } else if (r.error().code == SessionError::Code::MovedOn) {
                c->answer(requestId, Outcome::MovedOn, r.error().message);
            } else {
                c->answer(requestId, Outcome::Failed, r.error().message);
            }
            qCInfo(lcSessionSandboxes) << "session" << sessionId << "save asked from the sandbox:"
                                       << (r ? (r.value().published ? "saved" : "nothing to save") : "not saved");
        });
}

void SessionSandboxes::syncFromSandbox(const QString &sessionId, const QString &requestId, bool resolve)
{
    const auto [session, control] = askedFromSandbox(sessionId, requestId);
    if (!session)
        return;
    qCInfo(lcSessionSandboxes) << "session" << sessionId << "asked from its sandbox for a sync";
    QPointer<SandboxControl> c(control);
    QPointer<Session> s(session);
    ActivityLog *log = m_sessions->activity();
    session->sync(resolve ? ConflictMode::Resolve : ConflictMode::Stop,
        [c, s, log, requestId](Result<SyncReport, SessionError> r) {
            if (s)
                recordSync(log, *s, Door::Agent, r);
            if (!c)
                return;
            using Outcome = SandboxControl::Outcome;
            const auto paths = [](const QList<ConflictedFile> &files) {
                QStringList all;
                for (const ConflictedFile &f : files)
                    all << f.path;
                return all.join(QLatin1Char(' '));
            };
            if (r && r.value().conflicts.isEmpty())
                c->answer(requestId, Outcome::Synced, syncOutcomeName(r.value().outcome));
            else if (r) // resolve: the markers are in these files
                c->answer(requestId, Outcome::Conflict, paths(r.value().conflicts));
            else if (r.error().code == SessionError::Code::Conflict)
                c->answer(requestId, Outcome::Conflict, paths(r.error().conflicts));
            else
                c->answer(requestId, Outcome::Failed, r.error().message);
        });
}

void SessionSandboxes::startAgent(Session *session, const QString &command)
{
    makeAgent(session, command);
    m_entries[session->id()].agent->start();
}

void SessionSandboxes::makeAgent(Session *session, const QString &command)
{
    Entry &entry = m_entries[session->id()];
    entry.agentTimer = std::make_unique<SystemTimer>();
    AgentSpec spec(command);
    if (!entry.secrets)
        spec.secretsDirectory = LaunchRequest().secretsDirectory; // what the launch delivered there
    entry.agent = std::make_unique<AgentSupervisor>(
        entry.launcher->execd(), spec, entry.secrets.get(), m_clock, *entry.agentTimer);
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    const auto note = [self, s, command] {
        if (!self || !s)
            return;
        const auto it = self->m_entries.find(s->id());
        if (it == self->m_entries.end() || !it->second.agent)
            return;
        const AgentSupervisor *agent = it->second.agent.get();
        self->updateRecord(s, [agent, command](SandboxRecord &r) {
            r.agent = AgentRecord {command, agent->state(), agent->restarts(), agent->commandId()};
        });
    };
    connect(entry.agent.get(), &AgentSupervisor::stateChanged, this, note);
    connect(entry.agent.get(), &AgentSupervisor::runStarted, this, note);
    note();
}

Result<QJsonObject> SessionSandboxes::agent(const QString &sessionId) const
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.agent)
        return Error::notFound(tr("Session %1 runs no agent here").arg(sessionId));
    const AgentSupervisor &a = *it->second.agent;
    return QJsonObject {{QStringLiteral("session"), sessionId}, {QStringLiteral("state"), agentStateName(a.state())},
        {QStringLiteral("runs"), a.runs()}, {QStringLiteral("restarts"), a.restarts()},
        {QStringLiteral("lastExitCode"), a.lastExitCode()}, {QStringLiteral("reason"), a.reason()},
        {QStringLiteral("lines"), QJsonArray::fromStringList(a.recentLines())}};
}

Result<AgentViewState> SessionSandboxes::agentView(const QString &sessionId, quint64 after) const
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.agent)
        return Error::notFound(tr("Session %1 runs no agent here").arg(sessionId));
    AgentViewState v = it->second.agent->view(after);
    const Session *session = m_sessions->session(sessionId);
    if (session && session->record().sandbox && session->record().sandbox->agent)
        v.command = session->record().sandbox->agent->command;
    return v;
}

QMetaObject::Connection SessionSandboxes::watchAgent(
    const QString &sessionId, QObject *context, std::function<void()> changed)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.agent)
        return {};
    return connect(it->second.agent.get(), &AgentSupervisor::entryAdded, context,
        [changed = std::move(changed)](const AgentEntry &) { changed(); });
}

void SessionSandboxes::sendAgentInput(
    const QString &sessionId, const QString &text, std::function<void(Result<void>)> done)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.agent) {
        done(Error::notFound(tr("Session %1 runs no agent here").arg(sessionId)));
        return;
    }
    it->second.agent->sendInput(text, [done = std::move(done)](Result<void, SandboxError> r) {
        done(r ? Result<void>() : Result<void>(sessionsandboxes::fromSandbox(r.error())));
    });
}

} // namespace isolation
