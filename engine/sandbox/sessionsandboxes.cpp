#include "sessionsandboxes.h"

#include "agentsupervisor.h"
#include "repocloner.h"
#include "sandboxcontrol.h"
#include "sandboxlauncher.h"

#include "pairing/serveridentity.h"
#include "core/timer.h"
#include "runtime/lifecycleclient.h"
#include "runtime/runtimemanager.h"
#include "secrets/launchsecrets.h"
#include "secrets/secretvault.h"
#include "sessions/sessionjson.h"
#include "sessions/sessionmanager.h"

#include <QDateTime>
#include <QJsonArray>
#include <QLoggingCategory>
#include <QPointer>

Q_LOGGING_CATEGORY(lcSessionSandboxes, "isolation.sandbox.sessions")

namespace isolation {

namespace {

Error fromSession(const SessionError &e)
{
    switch (e.code) {
    case SessionError::Code::NotFound:
        return Error::notFound(e.message);
    case SessionError::Code::Unavailable:
    case SessionError::Code::NotPaired:
        return Error::unavailable(e.message);
    case SessionError::Code::MovedOn:
    case SessionError::Code::Conflict:
    case SessionError::Code::Failed:
        break;
    }
    return Error::failed(e.message);
}

Error fromSandbox(const SandboxError &e)
{
    switch (e.code) {
    case SandboxError::Code::Refused:
        return Error::invalidInput(e.message);
    case SandboxError::Code::Unavailable:
        return Error::unavailable(e.message);
    case SandboxError::Code::Failed:
    case SandboxError::Code::Cancelled:
        break;
    }
    return Error::failed(e.message);
}

// Work a finish would lose: touched files, or commits main does not have (a save the hub refused).
int unsaved(const ChangesReport &r)
{
    return int(r.changes.files.size()) + r.changes.ahead;
}

} // namespace

SessionSandboxes::SessionSandboxes(SessionManager *sessions, QNetworkAccessManager *network,
    std::function<RuntimeManager *()> runtime, std::function<const ServerIdentity *()> identity, QString defaultImage,
    QObject *parent)
    : QObject(parent)
    , m_sessions(sessions)
    , m_network(network)
    , m_runtime(std::move(runtime))
    , m_identity(std::move(identity))
    , m_defaultImage(std::move(defaultImage))
{
    // Sandboxes an earlier run of the engine launched are adopted once the runtime is healthy.
    for (Session *s : m_sessions->sessions()) {
        const QJsonObject sandbox = s->record().sandbox;
        if (sandbox.value(QStringLiteral("id")).toString().isEmpty())
            continue;
        const QString state = sandbox.value(QStringLiteral("state")).toString();
        if (state == QLatin1String("deleted") || state == QLatin1String("lost") || state == QLatin1String("suspended"))
            continue;
        m_toAdopt.append(s->id());
        record(s, QStringLiteral("adopting"), tr("launched by an earlier run of the engine; waiting for the runtime"));
    }
}

SessionSandboxes::Entry &SessionSandboxes::makeEntry(Session *session, RuntimeManager *runtime)
{
    Entry &entry = m_entries[session->id()];
    entry.lifecycle
        = std::make_unique<LifecycleClient>(m_network, runtime->lifecycleUrl(), runtime->apiKey(), &runtime->mountPolicy());
    entry.launcher = std::make_unique<SandboxLauncher>(m_network, entry.lifecycle.get());
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    connect(entry.launcher.get(), &SandboxLauncher::stateChanged, this, [self, s](SandboxState state) {
        if (self && s)
            self->record(s, sandboxStateName(state));
    });
    return entry;
}

void SessionSandboxes::dropEntry(const QString &sessionId)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end())
        return;
    // Later: this may run inside a callback of the launcher or of its client.
    SandboxLauncher *launcher = it->second.launcher.release();
    // The secrets go with the launcher (it reads them until then); the vault zeroes them.
    connect(launcher, &QObject::destroyed, [secrets = it->second.secrets] {});
    launcher->deleteLater();
    it->second.lifecycle.release()->deleteLater();
    m_entries.erase(it);
}

void SessionSandboxes::runtimeChanged()
{
    RuntimeManager *rt = m_runtime();
    if (!rt || rt->state() != RuntimeState::Healthy)
        return;
    for (auto &[id, entry] : m_entries)
        entry.lifecycle->setEndpoint(rt->lifecycleUrl(), rt->apiKey());
    for (const QString &id : std::exchange(m_toAdopt, {})) {
        if (Session *s = m_sessions->session(id))
            adopt(s);
    }
}

void SessionSandboxes::adopt(Session *session)
{
    const QJsonObject recorded = session->record().sandbox;
    LaunchRequest request;
    request.sessionId = session->id();
    request.worktree = session->workTree();
    request.image = recorded.value(QStringLiteral("image")).toString();
    Entry &entry = makeEntry(session, m_runtime());
    // The sandbox has its control mount since its launch (when it had one); asks made while no
    // engine watched are answered now.
    if (recorded.value(QStringLiteral("control")).toBool())
        startControl(session, entry);
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    const QString id = session->id();
    entry.launcher->adopt(request, recorded.value(QStringLiteral("id")).toString(), nullptr,
        [self, s, id](Result<void, SandboxError> r) {
            if (!self)
                return;
            if (r) {
                qCInfo(lcSessionSandboxes) << "session" << id << "adopted its sandbox";
                if (s)
                    self->restoreAgent(s);
                return;
            }
            self->dropEntry(id);
            if (s)
                self->record(s, QStringLiteral("lost"), r.error().message);
        });
}

SessionSandboxes::~SessionSandboxes()
{
    // Agents, then launchers: each uses the next. Sandboxes stay (sessions survive restarts).
    for (auto &[id, entry] : m_entries) {
        entry.agent.reset();
        entry.launcher.reset();
    }
}

void SessionSandboxes::record(Session *session, const QString &state, const QString &reason)
{
    QJsonObject sandbox = session->record().sandbox;
    sandbox.insert(QStringLiteral("state"), state);
    if (reason.isEmpty())
        sandbox.remove(QStringLiteral("reason"));
    else
        sandbox.insert(QStringLiteral("reason"), reason);
    const auto it = m_entries.find(session->id());
    if (it != m_entries.end() && !it->second.launcher->sandboxId().isEmpty())
        sandbox.insert(QStringLiteral("id"), it->second.launcher->sandboxId());
    session->setSandbox(sandbox);
}

QJsonObject SessionSandboxes::describe(Session *session) const
{
    return toJson(*session);
}

QJsonObject SessionSandboxes::list() const
{
    QJsonArray sessions;
    for (Session *s : m_sessions->sessions())
        sessions.append(describe(s));
    return QJsonObject {{QStringLiteral("sessions"), sessions}};
}

void SessionSandboxes::launch(const Launch &launch, Done done)
{
    const QString image = launch.image;
    // The secrets first: a launch they refuse makes nothing.
    std::shared_ptr<SecretVault> vault;
    if (!launch.sealedSecrets.isEmpty()) {
        const ServerIdentity *identity = m_identity();
        if (!identity) {
            done(Error::unavailable(tr("This computer is not paired: launch secrets cannot be opened")));
            return;
        }
        if (launch.sessionId.isEmpty()) {
            done(Error::invalidInput(tr("Launch secrets come with the session id they were sealed for")));
            return;
        }
        auto opened = LaunchSecrets::open(launch.sealedSecrets, identity->x25519Private.view(), identity->serverId,
            launch.sessionId, QDateTime::currentSecsSinceEpoch());
        if (!opened) {
            done(Error::invalidInput(tr("Launch refused: the launch secrets cannot be used: %1").arg(opened.error().message)));
            return;
        }
        vault = std::make_shared<SecretVault>();
        vault->adopt(std::move(opened).value());
    }
    for (const Launch::Repository &repo : launch.repositories) {
        if (!repo.tokenSecret.isEmpty() && !(vault && vault->contains(repo.tokenSecret))) {
            done(Error::invalidInput(
                tr("The credential of %1 names the launch secret %2, which the launch does not carry")
                    .arg(repo.directory, repo.tokenSecret)));
            return;
        }
    }
    RuntimeManager *runtime = m_runtime();
    if (!runtime) {
        done(Error::unavailable(tr("The sandbox runtime is off: sessions can start without a sandbox "
                                   "(session new), not launch")));
        return;
    }
    if (runtime->state() != RuntimeState::Healthy) {
        done(Error::unavailable(
            tr("The sandbox runtime is not ready (%1): %2").arg(runtimeStateName(runtime->state()), runtime->reason())));
        return;
    }
    QPointer<SessionSandboxes> self(this);
    m_sessions->create(launch.workspace, [self, image, vault, repos = launch.repositories, agent = launch.agent,
                                             done](Result<Session *, SessionError> created) {
        if (!self)
            return;
        if (!created) {
            done(fromSession(created.error()));
            return;
        }
        Session *s = created.value();
        auto request = LaunchRequest::fromWorkspace(s->id(), s->workTree(), self->m_defaultImage);
        RuntimeManager *rt = self->m_runtime();
        if (!request || !rt) {
            const Error why = request ? Error::unavailable(tr("The sandbox runtime went away"))
                                      : fromSandbox(request.error());
            self->m_sessions->remove(s->id(), [done, why](Result<void, SessionError>) { done(why); });
            return;
        }
        if (!image.isEmpty())
            request.value().image = image;
        s->setSandbox(QJsonObject {{QStringLiteral("image"), request.value().image},
            {QStringLiteral("launched"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
            {QStringLiteral("state"), sandboxStateName(SandboxState::Idle)}});
        Entry &entry = self->makeEntry(s, rt);
        entry.secrets = vault;
        if (self->startControl(s, entry)) {
            request.value().controlDirectory = entry.control->directory();
            QJsonObject sandbox = s->record().sandbox;
            sandbox.insert(QStringLiteral("control"), true);
            s->setSandbox(sandbox);
        }
        QPointer<Session> session(s);
        const QString id = s->id();
        // Nothing of a launch that failed stays: the launcher deleted its sandbox, the session goes.
        const auto undo = [self, id, done](const Error &why) {
            qCWarning(lcSessionSandboxes) << "session" << id << "could not launch:" << why.message;
            self->dropEntry(id);
            self->m_sessions->remove(id, [done, why](Result<void, SessionError>) { done(why); });
        };
        const auto start = [self, session, id, request = request.value(), vault, agent, done, undo] {
            if (!self || !session)
                return;
            qCInfo(lcSessionSandboxes) << "launching session" << id << "in image" << request.image;
            self->m_entries[id].launcher->launch(request, vault.get(),
                [self, session, id, agent, done, undo](Result<void, SandboxError> r) {
                    if (!self || !session)
                        return;
                    if (!r) {
                        undo(fromSandbox(r.error()));
                        return;
                    }
                    qCInfo(lcSessionSandboxes) << "session" << id << "running in sandbox"
                                               << self->m_entries[id].launcher->sandboxId();
                    if (!agent.isEmpty())
                        self->startAgent(session, agent);
                    done(self->describe(session));
                });
        };
        if (repos.isEmpty()) {
            start();
            return;
        }
        auto cloned = std::make_shared<QList<QJsonObject>>();
        self->cloneNext(s, repos, vault, cloned, [self, session, cloned, start, undo](Result<void> r) {
            if (!self || !session)
                return;
            if (!r) {
                undo(r.error());
                return;
            }
            QJsonObject sandbox = session->record().sandbox;
            QJsonArray list;
            for (const QJsonObject &c : std::as_const(*cloned))
                list.append(c);
            sandbox.insert(QStringLiteral("repositories"), list);
            session->setSandbox(sandbox);
            start();
        });
    }, launch.sessionId);
}

void SessionSandboxes::cloneNext(Session *session, QList<Launch::Repository> repos, std::shared_ptr<SecretVault> vault,
    Clones cloned, std::function<void(Result<void>)> done)
{
    if (repos.isEmpty()) {
        done({});
        return;
    }
    const Launch::Repository repo = repos.takeFirst();
    CloneRequest request;
    request.url = repo.url;
    request.worktree = session->workTree();
    request.directory = repo.directory;
    request.branch = repo.branch;
    if (!repo.tokenSecret.isEmpty()) {
        request.token = *vault->value(repo.tokenSecret);
        request.username = SecureBytes(repo.username.toUtf8());
    }
    auto *cloner = new RepoCloner(this);
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    cloner->start(std::move(request), [self, s, cloner, repo, repos, vault, cloned, done](Result<CloneResult, SandboxError> r) {
        cloner->deleteLater();
        if (!self || !s)
            return;
        if (!r) {
            done(Error {fromSandbox(r.error()).code, tr("cannot clone %1 into %2: %3")
                                                         .arg(repo.url.toString(QUrl::RemoveUserInfo), repo.directory,
                                                             r.error().message)});
            return;
        }
        qCInfo(lcSessionSandboxes) << "session" << s->id() << "cloned" << repo.url.toString(QUrl::RemoveUserInfo) << "into"
                                   << repo.directory << "at" << r.value().head;
        cloned->append(QJsonObject {{QStringLiteral("url"), repo.url.toString(QUrl::RemoveUserInfo)},
            {QStringLiteral("directory"), repo.directory}, {QStringLiteral("head"), r.value().head}});
        self->cloneNext(s, repos, vault, cloned, done);
    });
}

void SessionSandboxes::restoreAgent(Session *session)
{
    const QJsonObject recorded = session->record().sandbox.value(QStringLiteral("agent")).toObject();
    const QString command = recorded.value(QStringLiteral("command")).toString();
    const auto it = m_entries.find(session->id());
    if (command.isEmpty() || it == m_entries.end())
        return;
    makeAgent(session, command);
    // A paused sandbox's agent was stopped by the suspend: resume starts it. One that was meant to
    // run is taken over where execd still runs it, else started again.
    const QString state = recorded.value(QStringLiteral("state")).toString();
    if (it->second.launcher->state() != SandboxState::Running
        || (state != agentStateName(AgentState::Running) && state != agentStateName(AgentState::Waiting)))
        return;
    const QString commandId = recorded.value(QStringLiteral("commandId")).toString();
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
    return true;
}

void SessionSandboxes::saveFromSandbox(const QString &sessionId, const QString &requestId, const QString &message)
{
    const auto it = m_entries.find(sessionId);
    Session *session = m_sessions->session(sessionId);
    if (it == m_entries.end() || !it->second.control)
        return;
    SandboxControl *control = it->second.control.get();
    if (!session) {
        control->answer(requestId, SandboxControl::Outcome::Refused, tr("the session is gone"));
        return;
    }
    qCInfo(lcSessionSandboxes) << "session" << sessionId << "asked from its sandbox for a save";
    QPointer<SandboxControl> c(control);
    session->save({}, message.isEmpty() ? tr("Saved from the sandbox") : message,
        [c, sessionId, requestId](Result<SaveReport, SessionError> r) {
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
        QJsonObject sandbox = s->record().sandbox;
        sandbox.insert(QStringLiteral("agent"),
            QJsonObject {{QStringLiteral("command"), command},
                {QStringLiteral("state"), agentStateName(it->second.agent->state())},
                {QStringLiteral("restarts"), it->second.agent->restarts()},
                {QStringLiteral("commandId"), it->second.agent->commandId()}});
        s->setSandbox(sandbox);
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
    return QJsonObject {{QStringLiteral("session"), sessionId},
        {QStringLiteral("state"), agentStateName(a.state())}, {QStringLiteral("runs"), a.runs()},
        {QStringLiteral("restarts"), a.restarts()}, {QStringLiteral("lastExitCode"), a.lastExitCode()},
        {QStringLiteral("reason"), a.reason()}, {QStringLiteral("lines"), QJsonArray::fromStringList(a.recentLines())}};
}

Result<SessionSandboxes::Entry *> SessionSandboxes::entryFor(Session *session)
{
    const auto it = m_entries.find(session->id());
    if (it != m_entries.end())
        return &it->second;
    const QJsonObject sandbox = session->record().sandbox;
    if (sandbox.isEmpty())
        return Error::notFound(tr("Session %1 has no sandbox (it was started with session new)").arg(session->id()));
    return Error::unavailable(tr("The sandbox of session %1 is %2: %3")
            .arg(session->id(), sandbox.value(QStringLiteral("state")).toString(),
                sandbox.value(QStringLiteral("reason")).toString()));
}

void SessionSandboxes::resolve(const QString &sessionId, Callback done)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.launcher->execd()) {
        done(Error::notFound(tr("No sandbox of session %1 runs here").arg(sessionId)));
        return;
    }
    if (it->second.launcher->state() != SandboxState::Running) {
        done(Error::unavailable(tr("The sandbox of session %1 is %2")
                .arg(sessionId, sandboxStateName(it->second.launcher->state()))));
        return;
    }
    const ExecdClient *execd = it->second.launcher->execd();
    done(ViewTarget {execd->base().host(), quint16(execd->base().port()), execd->accessToken()});
}

Result<std::pair<Session *, SessionSandboxes::Entry *>> SessionSandboxes::driven(const QString &sessionId)
{
    Session *s = m_sessions->session(sessionId);
    if (!s)
        return Error::notFound(tr("No session %1").arg(sessionId));
    auto entry = entryFor(s);
    if (!entry)
        return entry.error();
    return std::make_pair(s, entry.value());
}

void SessionSandboxes::suspend(const QString &sessionId, Done done)
{
    auto found = driven(sessionId);
    if (!found) {
        done(found.error());
        return;
    }
    auto [s, entry] = found.value();
    if (entry->launcher->state() != SandboxState::Running) {
        done(Error::invalidInput(tr("Session %1 is not running (its sandbox is %2)")
                .arg(sessionId, sandboxStateName(entry->launcher->state()))));
        return;
    }
    // The agent is interrupted first, so that it does not write while the work is saved.
    if (entry->agent)
        entry->agent->stop();
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> session(s);
    // What changed is saved first; a save the hub refused (moved on) keeps the work on the session
    // branch, and the sandbox is suspended all the same. Then a snapshot keeps what the sandbox has
    // outside the worktree (installed tools, caches), and the sandbox goes: a suspended session
    // holds no memory or processes, only the snapshot on disk, and survives a reboot.
    const auto failed = [self, session](const QString &why, const Done &done) {
        if (self && session) {
            const auto it = self->m_entries.find(session->id());
            if (it != self->m_entries.end() && it->second.agent
                && it->second.launcher->state() == SandboxState::Running)
                it->second.agent->start(); // it was stopped for a suspend that did not happen
        }
        done(Error::failed(why));
    };
    s->save({}, tr("Suspend"), [self, session, sessionId, done, failed](Result<SaveReport, SessionError> saved) {
        if (!self || !session)
            return;
        if (!saved && saved.error().code != SessionError::Code::MovedOn) {
            failed(tr("Not suspended: the save failed: %1").arg(saved.error().message), done);
            return;
        }
        auto entry = self->entryFor(session);
        if (!entry) {
            done(entry.error());
            return;
        }
        SandboxLauncher *launcher = entry.value()->launcher.get();
        launcher->snapshot(QStringLiteral("session-") + sessionId,
            [self, session, saved, done, failed, launcher](Result<QString, SandboxError> snapshot) {
                if (!self || !session)
                    return;
                if (!snapshot) {
                    failed(tr("Not suspended: %1").arg(snapshot.error().message), done);
                    return;
                }
                // Written down before the sandbox goes: a kill from here on still resumes from it.
                QJsonObject sandbox = session->record().sandbox;
                sandbox.insert(QStringLiteral("snapshot"), snapshot.value());
                session->setSandbox(sandbox);
                launcher->remove([self, session, saved, done](Result<void, SandboxError> removed) {
                    if (!self || !session)
                        return;
                    if (!removed) {
                        done(Error::failed(tr("Not suspended: the sandbox could not be deleted: %1")
                                .arg(removed.error().message)));
                        return;
                    }
                    QJsonObject sandbox = session->record().sandbox;
                    sandbox.insert(QStringLiteral("state"), QStringLiteral("suspended"));
                    sandbox.remove(QStringLiteral("id"));
                    sandbox.remove(QStringLiteral("reason"));
                    session->setSandbox(sandbox);
                    qCInfo(lcSessionSandboxes) << "session" << session->id() << "suspended to snapshot"
                                               << sandbox.value(QStringLiteral("snapshot")).toString();
                    QJsonObject o = self->describe(session);
                    o.insert(QStringLiteral("suspendSave"), saved ? toJson(saved.value()) : toJson(saved.error()));
                    done(o);
                });
            });
    });
}

bool SessionSandboxes::hasSession(const QString &sessionId) const
{
    return m_sessions->session(sessionId) != nullptr;
}

void SessionSandboxes::resume(const QString &sessionId, Done done)
{
    Session *suspended = m_sessions->session(sessionId);
    if (suspended && suspended->record().sandbox.value(QStringLiteral("state")).toString() == QLatin1String("suspended")) {
        relaunch(suspended, std::move(done));
        return;
    }
    auto found = driven(sessionId);
    if (!found) {
        done(found.error());
        return;
    }
    auto [s, entry] = found.value();
    if (entry->launcher->state() != SandboxState::Paused) {
        done(Error::invalidInput(tr("Session %1 is not suspended (its sandbox is %2)")
                .arg(sessionId, sandboxStateName(entry->launcher->state()))));
        return;
    }
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> session(s);
    entry->launcher->resume([self, session, done](Result<void, SandboxError> r) {
        if (!self || !session)
            return;
        if (!r) {
            done(fromSandbox(r.error()));
            return;
        }
        const auto it = self->m_entries.find(session->id());
        if (it != self->m_entries.end() && it->second.agent)
            it->second.agent->start(); // a fresh start: the suspend stopped it
        done(self->describe(session));
    });
}

void SessionSandboxes::relaunch(Session *session, Done done)
{
    RuntimeManager *rt = m_runtime();
    if (!rt || rt->state() != RuntimeState::Healthy) {
        done(Error::unavailable(tr("The sandbox runtime is not ready")));
        return;
    }
    const QJsonObject recorded = session->record().sandbox;
    auto request = LaunchRequest::fromWorkspace(session->id(), session->workTree(), m_defaultImage);
    if (!request) {
        done(fromSandbox(request.error()));
        return;
    }
    if (!recorded.value(QStringLiteral("image")).toString().isEmpty())
        request.value().image = recorded.value(QStringLiteral("image")).toString();
    const QString snapshot = recorded.value(QStringLiteral("snapshot")).toString();
    request.value().snapshotId = snapshot;
    auto it = m_entries.find(session->id());
    if (it == m_entries.end())
        makeEntry(session, rt); // suspended by an earlier run of the engine
    Entry &entry = m_entries[session->id()];
    if (!entry.control)
        startControl(session, entry);
    if (entry.control)
        request.value().controlDirectory = entry.control->directory();
    const QString command = recorded.value(QStringLiteral("agent")).toObject().value(QStringLiteral("command")).toString();
    if (!entry.agent && !command.isEmpty())
        makeAgent(session, command);
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    const QString id = session->id();
    const auto started = [self, s, id, snapshot, done](const QString &from) {
        if (!self || !s)
            return;
        QJsonObject sandbox = s->record().sandbox;
        sandbox.remove(QStringLiteral("snapshot"));
        s->setSandbox(sandbox);
        self->record(s, sandboxStateName(SandboxState::Running));
        if (!snapshot.isEmpty()) {
            // Consumed: the sandbox runs from it now (the runtime keeps what the sandbox needs).
            auto entry = self->m_entries.find(id);
            if (entry != self->m_entries.end())
                entry->second.lifecycle->deleteSnapshot(snapshot, [snapshot](Result<QJsonObject, LifecycleError> r) {
                    if (!r)
                        qCInfo(lcSessionSandboxes) << "snapshot" << snapshot << "not deleted:" << r.error().message;
                });
        }
        qCInfo(lcSessionSandboxes) << "session" << id << "resumed" << from;
        auto entry = self->m_entries.find(id);
        if (entry != self->m_entries.end() && entry->second.agent) {
            entry->second.agent->setExecd(entry->second.launcher->execd()); // the new sandbox's
            entry->second.agent->start();
        }
        done(self->describe(s));
    };
    // A resume that fails leaves the session suspended, to be resumed (or finished) again.
    const auto stillSuspended = [self, s](const Error &why, const Done &done) {
        if (self && s) {
            QJsonObject sandbox = s->record().sandbox;
            sandbox.insert(QStringLiteral("state"), QStringLiteral("suspended"));
            sandbox.insert(QStringLiteral("reason"), why.message);
            sandbox.remove(QStringLiteral("id"));
            s->setSandbox(sandbox);
        }
        done(why);
    };
    const LaunchRequest fresh = [r = request.value()]() mutable {
        r.snapshotId.clear();
        return r;
    }();
    entry.launcher->launch(request.value(), entry.secrets.get(),
        [self, s, id, snapshot, fresh, started, stillSuspended, done](Result<void, SandboxError> r) {
            if (!self || !s)
                return;
            if (r) {
                started(snapshot.isEmpty() ? QStringLiteral("in a fresh sandbox") : QStringLiteral("from its snapshot"));
                return;
            }
            if (snapshot.isEmpty()) {
                stillSuspended(fromSandbox(r.error()), done);
                return;
            }
            // The worktree holds the work: a fresh sandbox from the image loses only what the
            // snapshot had outside it.
            qCWarning(lcSessionSandboxes) << "session" << id << "cannot resume from snapshot" << snapshot << ":"
                                          << r.error().message << "- starting a fresh sandbox";
            auto entry = self->m_entries.find(id);
            if (entry == self->m_entries.end()) {
                stillSuspended(fromSandbox(r.error()), done);
                return;
            }
            entry->second.launcher->launch(fresh, entry->second.secrets.get(),
                [self, s, started, stillSuspended, done](Result<void, SandboxError> again) {
                    if (!self || !s)
                        return;
                    if (!again) {
                        stillSuspended(fromSandbox(again.error()), done);
                        return;
                    }
                    started(QStringLiteral("in a fresh sandbox (its snapshot could not be restored)"));
                });
        });
}

void SessionSandboxes::deleteSnapshot(Session *session)
{
    const QString snapshot = session->record().sandbox.value(QStringLiteral("snapshot")).toString();
    RuntimeManager *rt = m_runtime();
    if (snapshot.isEmpty() || !rt || rt->state() != RuntimeState::Healthy)
        return;
    auto *lifecycle = new LifecycleClient(m_network, rt->lifecycleUrl(), rt->apiKey(), &rt->mountPolicy(), this);
    lifecycle->deleteSnapshot(snapshot, [lifecycle, snapshot](Result<QJsonObject, LifecycleError> r) {
        lifecycle->deleteLater();
        if (!r)
            qCInfo(lcSessionSandboxes) << "snapshot" << snapshot << "not deleted:" << r.error().message;
    });
}

void SessionSandboxes::stopSandbox(Session *session, std::function<void(Result<void>)> done)
{
    deleteSnapshot(session); // a suspended session's
    const auto it = m_entries.find(session->id());
    if (it == m_entries.end()) {
        // Not driven by this run (lost, or never adopted): delete what the runtime may still have.
        const QString sandboxId = session->record().sandbox.value(QStringLiteral("id")).toString();
        RuntimeManager *rt = m_runtime();
        if (sandboxId.isEmpty() || !rt || rt->state() != RuntimeState::Healthy) {
            done({});
            return;
        }
        auto *lifecycle = new LifecycleClient(m_network, rt->lifecycleUrl(), rt->apiKey(), &rt->mountPolicy(), this);
        lifecycle->deleteSandbox(sandboxId, [lifecycle, sandboxId, done](Result<QJsonObject, LifecycleError> r) {
            lifecycle->deleteLater();
            if (!r)
                qCInfo(lcSessionSandboxes) << "sandbox" << sandboxId << "not deleted:" << r.error().message;
            done({});
        });
        return;
    }
    QPointer<SessionSandboxes> self(this);
    const QString id = session->id();
    it->second.launcher->remove([self, id, done](Result<void, SandboxError> r) {
        if (!self)
            return;
        if (!r) {
            done(fromSandbox(r.error()));
            return;
        }
        self->dropEntry(id);
        done({});
    });
}

void SessionSandboxes::finish(const QString &sessionId, bool discard, Done done)
{
    Session *s = m_sessions->session(sessionId);
    if (!s) {
        done(Error::notFound(tr("No session %1").arg(sessionId)));
        return;
    }
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> session(s);
    s->changes(false, [self, session, sessionId, discard, done](Result<ChangesReport, SessionError> changes) {
        if (!self || !session)
            return;
        if (!changes && !discard) {
            done(Error::failed(tr("Not finished: the changes cannot be read (%1); finish --discard drops them")
                    .arg(changes.error().message)));
            return;
        }
        const int pending = changes ? unsaved(changes.value()) : 0;
        if (pending > 0 && !discard) {
            done(Error::invalidInput(tr("Session %1 has unsaved work (%2 changed file(s), %3 commit(s) not in main): "
                                        "save it first, or finish --discard")
                    .arg(sessionId)
                    .arg(changes.value().changes.files.size())
                    .arg(changes.value().changes.ahead)));
            return;
        }
        self->stopSandbox(session, [self, sessionId, pending, done](Result<void> stopped) {
            if (!self)
                return;
            if (!stopped) {
                done(Error {stopped.error().code, tr("Not finished: the sandbox could not be deleted: %1")
                                                      .arg(stopped.error().message)});
                return;
            }
            self->m_sessions->remove(sessionId, [sessionId, pending, done](Result<void, SessionError> removed) {
                if (!removed) {
                    done(fromSession(removed.error()));
                    return;
                }
                qCInfo(lcSessionSandboxes) << "session" << sessionId << "finished;" << pending
                                           << "unsaved change(s) discarded";
                done(QJsonObject {{QStringLiteral("finished"), sessionId}, {QStringLiteral("discarded"), pending}});
            });
        });
    });
}

} // namespace isolation
