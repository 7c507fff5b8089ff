#include "sessionsandboxes.h"
#include "sessionsandboxes_internal.h"

#include "sandbox/agentsupervisor.h"
#include "sandbox/repocloner.h"
#include "sandbox/sandboxcontrol.h"
#include "sandbox/sandboxlauncher.h"

#include "core/timer.h"
#include "pairing/serveridentity.h"
#include "runtime/lifecycleclient.h"
#include "runtime/runtimemanager.h"
#include "secrets/launchsecrets.h"
#include "secrets/secretvault.h"
#include "sessions/sessionjson.h"
#include "sessions/sessionmanager.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QLoggingCategory>
#include <QPointer>

Q_LOGGING_CATEGORY(lcSessionSandboxes, "isolation.sandbox.sessions")

namespace isolation {

namespace sessionsandboxes {

Error fromSession(const SessionError &e)
{
    switch (e.code) {
    case SessionError::Code::NotFound:
        return Error::notFound(e.message);
    case SessionError::Code::Unavailable:
    case SessionError::Code::NotPaired:
        return Error::unavailable(e.message);
    case SessionError::Code::Invalid:
        return Error::invalidInput(e.message);
    case SessionError::Code::MovedOn:
    case SessionError::Code::Conflict:
    case SessionError::Code::Storage:
    case SessionError::Code::WorktreeMissing:
    case SessionError::Code::Failed:
        break;
    case SessionError::Code::Cancelled:
        return Error::cancelled(e.message);
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
    case SandboxError::Code::Cancelled:
        return Error::cancelled(e.message);
    case SandboxError::Code::Failed:
        break;
    }
    return Error::failed(e.message);
}

} // namespace sessionsandboxes

using namespace sessionsandboxes;

namespace {

// Work a finish would lose: touched files, or commits main does not have (a save the hub refused).
int unsaved(const ChangesReport &r)
{
    return int(r.changes.files.size()) + r.changes.ahead;
}

// A repository's clone, its credentials from the vault (which holds every secret it names).
CloneRequest cloneRequest(const SessionSandboxes::Launch::Repository &repo, const SecretVault *vault)
{
    CloneRequest request;
    request.url = repo.url;
    request.directory = repo.directory;
    request.branch = repo.branch;
    const auto secret = [vault](const QString &name) {
        const SecureBytes *value = vault && !name.isEmpty() ? vault->value(name) : nullptr;
        return value ? *value : SecureBytes();
    };
    request.token = secret(repo.tokenSecret);
    if (!repo.tokenSecret.isEmpty() || !repo.sshKeySecret.isEmpty())
        request.username = SecureBytes(repo.username.toUtf8());
    request.sshKey = secret(repo.sshKeySecret);
    request.sshPassphrase = secret(repo.sshPassphraseSecret);
    request.knownHosts = repo.knownHosts;
    request.insecureAcceptAnyHostKey = repo.insecureAcceptAnyHostKey;
    return request;
}

// The private keys of ssh clones (and their passphrases) out of the session's secrets, once the
// clones are done: what stays in the vault reaches the sandbox.
void dropCloneKeys(const QList<SessionSandboxes::Launch::Repository> &repositories, SecretVault *vault)
{
    if (!vault)
        return;
    for (const SessionSandboxes::Launch::Repository &repo : repositories) {
        for (const QString &name : {repo.sshKeySecret, repo.sshPassphraseSecret}) {
            if (!name.isEmpty())
                vault->remove(name);
        }
    }
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
        const std::optional<SandboxRecord> &sandbox = s->record().sandbox;
        if (!sandbox || sandbox->id.isEmpty())
            continue;
        const SandboxState state = sandbox->state;
        if (state == SandboxState::Deleted || state == SandboxState::Lost || state == SandboxState::Suspended)
            continue;
        m_toAdopt.append(s->id());
        record(s, SandboxState::Adopting, tr("launched by an earlier run of the engine; waiting for the runtime"));
    }
}

SessionSandboxes::Entry &SessionSandboxes::makeEntry(Session *session, RuntimeManager *runtime)
{
    Entry &entry = m_entries[session->id()];
    entry.lifecycle = std::make_unique<LifecycleClient>(
        m_network, runtime->lifecycleUrl(), runtime->apiKey(), &runtime->mountPolicy());
    entry.launcher = std::make_unique<SandboxLauncher>(m_network, entry.lifecycle.get());
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    connect(entry.launcher.get(), &SandboxLauncher::stateChanged, this, [self, s](SandboxState state) {
        if (self && s)
            self->record(s, state);
    });
    // The build's output as the reason of the Building state: what the tray and `session` show.
    // Each record is a write of session.json: a line at most every 250 ms, and every step (the log
    // has every line).
    auto shown = std::make_shared<QElapsedTimer>();
    connect(entry.launcher.get(), &SandboxLauncher::buildOutput, this, [self, s, shown](const QString &line) {
        if (!self || !s || (shown->isValid() && shown->elapsed() < 250 && !line.startsWith(QLatin1String("Step "))))
            return;
        shown->start();
        self->record(s, SandboxState::Building, line);
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
    const SandboxRecord recorded = session->record().sandbox.value_or(SandboxRecord {});
    LaunchRequest request;
    request.sessionId = session->id();
    request.worktree = session->workTree();
    request.image = recorded.image;
    Entry &entry = makeEntry(session, m_runtime());
    // The sandbox has its control mount since its launch (when it had one); asks made while no
    // engine watched are answered now.
    if (recorded.control)
        startControl(session, entry);
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    const QString id = session->id();
    entry.launcher->adopt(request, recorded.id, nullptr, [self, s, id](Result<void, SandboxError> r) {
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
            self->record(s, SandboxState::Lost, r.error().message);
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

void SessionSandboxes::record(Session *session, SandboxState state, const QString &reason)
{
    SandboxRecord sandbox = session->record().sandbox.value_or(SandboxRecord {});
    sandbox.state = state;
    sandbox.reason = reason;
    const auto it = m_entries.find(session->id());
    if (it != m_entries.end() && !it->second.launcher->sandboxId().isEmpty())
        sandbox.id = it->second.launcher->sandboxId();
    session->setSandbox(sandbox);
}

void SessionSandboxes::updateRecord(Session *session, const std::function<void(SandboxRecord &)> &change)
{
    SandboxRecord sandbox = session->record().sandbox.value_or(SandboxRecord {});
    change(sandbox);
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
    // The secrets first: a launch they refuse makes nothing.
    auto vault = openLaunchSecrets(launch);
    if (!vault) {
        done(vault.error());
        return;
    }
    if (auto ready = runtimeReady(); !ready) {
        done(ready.error());
        return;
    }
    Launch rest = launch;
    rest.sealedSecrets.clear(); // opened: the vault holds them now
    QPointer<SessionSandboxes> self(this);
    m_sessions->create(
        launch.workspace,
        [self, rest = std::move(rest), vault = vault.value(), done](Result<Session *, SessionError> created) {
            if (!self)
                return;
            if (!created) {
                done(fromSession(created.error()));
                return;
            }
            self->launchInto(created.value(), rest, vault, done);
        },
        launch.sessionId);
}

Result<std::shared_ptr<SecretVault>> SessionSandboxes::openLaunchSecrets(const Launch &launch) const
{
    std::shared_ptr<SecretVault> vault;
    if (!launch.sealedSecrets.isEmpty()) {
        const ServerIdentity *identity = m_identity();
        if (!identity)
            return Error::unavailable(tr("This computer is not paired: launch secrets cannot be opened"));
        if (launch.sessionId.isEmpty())
            return Error::invalidInput(tr("Launch secrets come with the session id they were sealed for"));
        auto opened = LaunchSecrets::open(launch.sealedSecrets, identity->x25519Private.view(), identity->serverId,
            launch.sessionId, QDateTime::currentSecsSinceEpoch());
        if (!opened)
            return Error::invalidInput(
                tr("Launch refused: the launch secrets cannot be used: %1").arg(opened.error().message));
        vault = std::make_shared<SecretVault>();
        vault->adopt(std::move(opened).value());
    }
    for (const Launch::Repository &repo : launch.repositories) {
        for (const QString &name : {repo.tokenSecret, repo.sshKeySecret, repo.sshPassphraseSecret}) {
            if (!name.isEmpty() && !(vault && vault->contains(name)))
                return Error::invalidInput(
                    tr("The credential of %1 names the launch secret %2, which the launch does not carry")
                        .arg(repo.directory, name));
        }
        // The URL, the credential and (ssh) the server's known host keys, before anything is made.
        if (auto source = RepoCloner::checkSource(cloneRequest(repo, vault.get())); !source)
            return Error::invalidInput(
                tr("cannot clone %1 into %2: %3")
                    .arg(RepoCloner::shownUrl(repo.url), repo.directory, source.error().message));
    }
    return vault;
}

Result<void> SessionSandboxes::runtimeReady() const
{
    RuntimeManager *runtime = m_runtime();
    if (!runtime)
        return Error::unavailable(tr("The sandbox runtime is off: sessions can start without a sandbox "
                                     "(session new), not launch"));
    if (runtime->state() != RuntimeState::Healthy)
        return Error::unavailable(
            tr("The sandbox runtime is not ready (%1): %2").arg(runtimeStateName(runtime->state()), runtime->reason()));
    return {};
}

void SessionSandboxes::launchInto(Session *s, const Launch &launch, std::shared_ptr<SecretVault> vault, Done done)
{
    auto request = LaunchRequest::fromWorkspace(s->id(), s->workTree(), m_defaultImage);
    RuntimeManager *rt = m_runtime();
    if (!request || !rt) {
        const Error why
            = request ? Error::unavailable(tr("The sandbox runtime went away")) : fromSandbox(request.error());
        m_sessions->remove(s->id(), [done, why](Result<void, SessionError>) { done(why); });
        return;
    }
    if (!launch.image.isEmpty()) {
        request.value().image = launch.image;
        request.value().build.reset(); // the image asked for replaces devcontainer.json's
    }
    SandboxRecord fresh;
    fresh.image = request.value().image;
    fresh.launched = QDateTime::currentDateTimeUtc();
    s->setSandbox(fresh);
    Entry &entry = makeEntry(s, rt);
    entry.secrets = vault;
    if (startControl(s, entry)) {
        request.value().controlDirectory = entry.control->directory();
        updateRecord(s, [](SandboxRecord &r) { r.control = true; });
    }
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> session(s);
    const QString id = s->id();
    // Nothing of a launch that failed stays: the launcher deleted its sandbox, the session goes.
    entry.undoLaunch = [self, id, done](const Error &why) {
        if (why.code == Error::Code::Cancelled)
            qCInfo(lcSessionSandboxes) << "session" << id << ": launch cancelled by the member";
        else
            qCWarning(lcSessionSandboxes) << "session" << id << "could not launch:" << why.message;
        self->dropEntry(id);
        self->m_sessions->remove(id, [done, why](Result<void, SessionError>) { done(why); });
    };
    s->setLaunchCancel([self, id] { return self && self->cancelLaunch(id); });
    const auto start = [self, session, id, request = request.value(), vault, agent = launch.agent, done] {
        if (!self || !session)
            return;
        qCInfo(lcSessionSandboxes) << "launching session" << id << "in image" << request.image;
        self->m_entries[id].launcher->launch(
            request, vault.get(), [self, session, id, agent, done](Result<void, SandboxError> r) {
                if (!self || !session)
                    return;
                if (!r) {
                    // Cancelled by the member: the launch ends when its sandbox is deleted.
                    const auto e = self->m_entries.find(id);
                    if (e == self->m_entries.end() || !e->second.launchCancelled)
                        self->failLaunch(id, fromSandbox(r.error()));
                    return;
                }
                session->setLaunchCancel(nullptr);
                self->m_entries[id].undoLaunch = nullptr;
                qCInfo(lcSessionSandboxes)
                    << "session" << id << "running in sandbox" << self->m_entries[id].launcher->sandboxId();
                // A built image is known by its tag once built: the record names what runs.
                self->updateRecord(session,
                    [image = self->m_entries[id].launcher->request().image](SandboxRecord &r) { r.image = image; });
                if (!agent.isEmpty())
                    self->startAgent(session, agent);
                done(self->describe(session));
            });
    };
    if (launch.repositories.isEmpty()) {
        start();
        return;
    }
    auto cloned = std::make_shared<QList<ClonedRepository>>();
    cloneNext(s, launch.repositories, vault, cloned,
        [self, session, id, cloned, start, repositories = launch.repositories, vault](Result<void> r) {
            if (!self || !session)
                return;
            if (!r) {
                self->failLaunch(id, r.error());
                return;
            }
            self->updateRecord(session, [cloned](SandboxRecord &r) { r.repositories = *cloned; });
            // A private key (and its passphrase) serves the clone only: it never reaches the sandbox.
            dropCloneKeys(repositories, vault.get());
            start();
        });
}

bool SessionSandboxes::cancelLaunch(const QString &sessionId)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.undoLaunch || it->second.launchCancelled)
        return false;
    Entry &entry = it->second;
    if (entry.cloner) {
        entry.cloner->cancel(); // the clone ends Cancelled, leaving nothing; so does the launch
        return true;
    }
    if (entry.launcher->state() == SandboxState::Running)
        return false; // launched: its answer is on its way
    entry.launchCancelled = true;
    QPointer<SessionSandboxes> self(this);
    entry.launcher->remove([self, sessionId](Result<void, SandboxError> removed) {
        if (!self)
            return;
        self->failLaunch(sessionId,
            removed ? Error::cancelled(tr("Launch cancelled: the sandbox and the session are removed"))
                    : fromSandbox(removed.error()));
    });
    return true;
}

void SessionSandboxes::failLaunch(const QString &sessionId, const Error &why)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.undoLaunch)
        return;
    if (Session *s = m_sessions->session(sessionId))
        s->setLaunchCancel(nullptr);
    std::exchange(it->second.undoLaunch, nullptr)(why);
}

void SessionSandboxes::cloneNext(Session *session, QList<Launch::Repository> repos, std::shared_ptr<SecretVault> vault,
    Clones cloned, std::function<void(Result<void>)> done)
{
    if (repos.isEmpty()) {
        done({});
        return;
    }
    const Launch::Repository repo = repos.takeFirst();
    CloneRequest request = cloneRequest(repo, vault.get());
    request.worktree = session->workTree();
    auto *cloner = new RepoCloner(this);
    if (const auto it = m_entries.find(session->id()); it != m_entries.end())
        it->second.cloner = cloner;
    QPointer<SessionSandboxes> self(this);
    QPointer<Session> s(session);
    cloner->start(
        std::move(request), [self, s, cloner, repo, repos, vault, cloned, done](Result<CloneResult, SandboxError> r) {
            cloner->deleteLater();
            if (!self || !s)
                return;
            if (!r) {
                done(Error {fromSandbox(r.error()).code,
                    tr("cannot clone %1 into %2: %3")
                        .arg(RepoCloner::shownUrl(repo.url), repo.directory, r.error().message)});
                return;
            }
            qCInfo(lcSessionSandboxes) << "session" << s->id() << "cloned" << RepoCloner::shownUrl(repo.url) << "into"
                                       << repo.directory << "at" << r.value().head;
            cloned->append(ClonedRepository {RepoCloner::shownUrl(repo.url), repo.directory, r.value().head});
            self->cloneNext(s, repos, vault, cloned, done);
        });
}

Result<SessionSandboxes::Entry *> SessionSandboxes::entryFor(Session *session)
{
    const auto it = m_entries.find(session->id());
    if (it != m_entries.end())
        return &it->second;
    const std::optional<SandboxRecord> &sandbox = session->record().sandbox;
    if (!sandbox)
        return Error::notFound(tr("Session %1 has no sandbox (it was started with session new)").arg(session->id()));
    return Error::unavailable(tr("The sandbox of session %1 is %2: %3")
                                  .arg(session->id(), sandboxStateName(sandbox->state), sandbox->reason));
}

void SessionSandboxes::resolve(const QString &sessionId, Callback done)
{
    done(*resolveNow(sessionId));
}

std::optional<Result<ViewTarget>> SessionSandboxes::resolveNow(const QString &sessionId)
{
    const auto it = m_entries.find(sessionId);
    if (it == m_entries.end() || !it->second.launcher->execd())
        return Result<ViewTarget>(Error::notFound(tr("No sandbox of session %1 runs here").arg(sessionId)));
    if (it->second.launcher->state() != SandboxState::Running) {
        return Result<ViewTarget>(Error::unavailable(
            tr("The sandbox of session %1 is %2").arg(sessionId, sandboxStateName(it->second.launcher->state()))));
    }
    const ExecdClient *execd = it->second.launcher->execd();
    return Result<ViewTarget>(ViewTarget {execd->base().host(), quint16(execd->base().port()), execd->accessToken()});
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

bool SessionSandboxes::hasSession(const QString &sessionId) const
{
    return m_sessions->session(sessionId) != nullptr;
}

void SessionSandboxes::stopSandbox(Session *session, std::function<void(Result<void>)> done)
{
    deleteSnapshot(session); // a suspended session's
    const auto it = m_entries.find(session->id());
    if (it == m_entries.end()) {
        // Not driven by this run (lost, or never adopted): delete what the runtime may still have.
        const QString sandboxId = session->record().sandbox ? session->record().sandbox->id : QString();
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
                done(Error {stopped.error().code,
                    tr("Not finished: the sandbox could not be deleted: %1").arg(stopped.error().message)});
                return;
            }
            self->m_sessions->remove(sessionId, [sessionId, pending, done](Result<void, SessionError> removed) {
                if (!removed) {
                    done(fromSession(removed.error()));
                    return;
                }
                qCInfo(lcSessionSandboxes)
                    << "session" << sessionId << "finished;" << pending << "unsaved change(s) discarded";
                done(QJsonObject {{QStringLiteral("finished"), sessionId}, {QStringLiteral("discarded"), pending}});
            });
        });
    });
}

} // namespace isolation
