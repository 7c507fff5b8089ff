// Sessions with sandboxes: launch (a new session of the workspace — warm cache or spare first —
// then its sandbox on the runtime, the worktree at /workspace, devcontainer.json honoured),
// suspend (save what changed, snapshot the sandbox, delete it), resume (a sandbox restored from
// the snapshot), finish (refused while work is
// unsaved unless discarded; the sandbox deleted, the session removed). Served to the cloud as
// tunnel calls and to the faces on the LocalAPI (docs/protocol.md, "Session calls"). What a
// session's sandbox is goes into its session.json (`sandbox`). On the event loop.
#pragma once

#include "sessionactivity.h"

#include "core/clock.h"
#include "core/result.h"
#include "views/agentviews.h"
#include "doorman/viewtargets.h"
#include "sandbox/sandboxrecord.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <map>
#include <memory>

class QNetworkAccessManager;

namespace isolation {

class HttpServer;
class LifecycleClient;
class RepoCloner;
class RpcDispatcher;
class RuntimeManager;
class AgentSupervisor;
class SandboxControl;
class SandboxLauncher;
class SystemTimer;
class SecretVault;
struct LaunchRequest;
struct ServerIdentity;
class Session;
class SessionManager;

class SessionSandboxes final : public QObject, public ViewTargetResolver, public AgentViewSource
{
    Q_OBJECT
public:
    using Done = std::function<void(Result<QJsonObject>)>;
    // `done`, recording the session's `event` ("launched", "suspended", ...) in the activity log
    // first when it succeeded; `sessionId` empty: the one the answer names (a launch).
    Done logged(const QString &event, const QString &sessionId, Door door, Done done) const;

    // `runtime` answers the engine's runtime now (null while it is off or stopped); `defaultImage`
    // is the sandbox image when the workspace has no devcontainer.json. All must outlive this.
    // `identity` answers this server's paired identity (null while not paired): launch secrets
    // are opened with its X25519 key.
    SessionSandboxes(SessionManager *sessions, QNetworkAccessManager *network,
        std::function<RuntimeManager *()> runtime, std::function<const ServerIdentity *()> identity,
        QString defaultImage, QObject *parent = nullptr);
    ~SessionSandboxes() override;

    struct Launch
    {
        QString workspace; // name or id
        QString image; // empty: devcontainer.json's, else the default
        QString sessionId; // empty: the engine names it
        QByteArray sealedSecrets; // launch secrets as the hub sealed them for sessionId (may be empty)
        struct Repository
        {
            QString url; // https://, http:// to this machine, ssh:// or [user@]host:path (RepoCloner)
            QString directory; // in the worktree
            QString branch; // empty: the remote's default
            QString tokenSecret; // https: the launch secret holding the credential (empty: none)
            QString username; // with the token, or the ssh login when the URL names none; empty: "git"
            // ssh: the launch secrets holding the private key and its passphrase (empty: none); both
            // serve the clone only and are dropped before the sandbox starts.
            QString sshKeySecret;
            QString sshPassphraseSecret;
            QByteArray knownHosts; // ssh: OpenSSH known_hosts lines the server's host key must be in
            bool insecureAcceptAnyHostKey = false; // ssh: take any host key (a man in the middle too)
        };
        QList<Repository> repositories; // cloned into the worktree before the sandbox starts
        QString agent; // a command run and kept running in the sandbox (empty: none)
    };
    // Answers the session (as `sessions` lists it). Secrets that cannot be opened for this server
    // and session (another server, another session, expired, tampered) refuse the launch before
    // anything is made; opened, they live in memory only, with the sandbox.
    void launch(const Launch &launch, Done done);
    void suspend(const QString &sessionId, Done done);
    void resume(const QString &sessionId, Done done);
    bool hasSession(const QString &sessionId) const;
    // Refused (InvalidInput) while the session has unsaved changes, unless `discard`.
    void finish(const QString &sessionId, bool discard, Done done);
    // Every session, with its sandbox: {"sessions": [...]}.
    QJsonObject list() const;
    // A session's agent: {command, state, runs, restarts, reason, lines: [...]} (recent output).
    Result<QJsonObject> agent(const QString &sessionId) const;
    // The agent conversation view's source (AgentViewSource, for the doorman).
    Result<AgentViewState> agentView(const QString &sessionId, quint64 after) const override;
    QMetaObject::Connection watchAgent(
        const QString &sessionId, QObject *context, std::function<void()> changed) override;
    void sendAgentInput(const QString &sessionId, const QString &text, std::function<void(Result<void>)> done) override;
    // Where a session's views go: its running sandbox's execd (ViewTargetResolver, for the doorman).
    // NotFound: no such session or no sandbox driven by this engine; Unavailable: not running.
    void resolve(const QString &sessionId, Callback done) override;
    std::optional<Result<ViewTarget>> resolveNow(const QString &sessionId) override;
    // The engine's runtime appeared or changed state: once healthy, the lifecycle clients follow it
    // (a restarted lifecycle server may listen elsewhere) and sandboxes launched by an earlier run
    // of the engine are adopted (running or paused, as the runtime has them).
    void runtimeChanged();

    // session.launch {workspace, image?}, session.suspend / session.resume {session},
    // session.finish {session, discard?}, sessions.list {}.
    void addCalls(RpcDispatcher &rpc);
    // POST /v1/sessions/launch, POST /v1/sessions/{id}/suspend|resume|finish, on whatever `get`
    // answers when a request comes (null: 503, the engine is not running).
    static void addRoutes(HttpServer &http, std::function<SessionSandboxes *()> get);

private:
    struct Entry
    {
        std::shared_ptr<SecretVault> secrets; // outlives the launcher, which reads it for every command
        std::unique_ptr<LifecycleClient> lifecycle;
        std::unique_ptr<SandboxLauncher> launcher;
        std::unique_ptr<SystemTimer> agentTimer; // before the agent: it outlives it
        std::unique_ptr<AgentSupervisor> agent;
        std::unique_ptr<SandboxControl> control; // saves asked from inside the sandbox
        // While a launch runs: how it ends when it fails (the sandbox and the session removed).
        std::function<void(const Error &)> undoLaunch;
        QPointer<RepoCloner> cloner; // the repository being cloned for the launch
        bool launchCancelled = false; // the launch's end waits for its sandbox's deletion
    };
    using Clones = std::shared_ptr<QList<ClonedRepository>>;
    // Launch, step by step: the launch secrets opened (null when there are none; an error refuses
    // the launch), the runtime ready, then the new session's sandbox made (repositories cloned
    // first) and its agent started.
    Result<std::shared_ptr<SecretVault>> openLaunchSecrets(const Launch &launch) const;
    Result<void> runtimeReady() const;
    void launchInto(Session *session, const Launch &launch, std::shared_ptr<SecretVault> vault, Done done);
    // The member's Cancel of a launch in flight: the clone stopped, or the sandbox deleted from
    // whatever state it reached; the launch then ends Cancelled and the session goes. False once
    // the sandbox runs (the launch is done).
    bool cancelLaunch(const QString &sessionId);
    // Ends the launch of `sessionId` in failure (`why`), once.
    void failLaunch(const QString &sessionId, const Error &why);
    // Clones `repos` one after the other into the session's worktree; `done` with what was cloned.
    void cloneNext(Session *session, QList<Launch::Repository> repos, std::shared_ptr<SecretVault> vault, Clones cloned,
        std::function<void(Result<void>)> done);
    void startAgent(Session *session, const QString &command);
    void makeAgent(Session *session, const QString &command); // Idle, its record kept up to date
    // After an adoption: the agent the record names, taken over or started again (docs/runtime.md).
    void restoreAgent(Session *session);
    // The session's control directory, watched: false when it cannot be used (no way back then).
    bool startControl(Session *session, Entry &entry);
    // A process in the session's sandbox asked for a save of everything that changed.
    // The session and control directory a request from the sandbox is for; {} when either is gone
    // (a request of a gone session is answered "refused").
    std::pair<Session *, SandboxControl *> askedFromSandbox(const QString &sessionId, const QString &requestId);
    void saveFromSandbox(const QString &sessionId, const QString &requestId, const QString &message);
    void syncFromSandbox(const QString &sessionId, const QString &requestId, bool resolve);
    Result<Entry *> entryFor(Session *session);
    // The session and the sandbox this engine drives for it, or the error to answer.
    Result<std::pair<Session *, Entry *>> driven(const QString &sessionId);
    void record(Session *session, SandboxState state, const QString &reason = {});
    // Changes the session's sandbox record (a new one when it has none) and keeps it.
    void updateRecord(Session *session, const std::function<void(SandboxRecord &)> &change);
    QJsonObject describe(Session *session) const;
    void stopSandbox(Session *session, std::function<void(Result<void>)> done);
    // Resume of a suspended session: a sandbox restored from its snapshot (a fresh one from the
    // image when that fails), the agent started again.
    void relaunch(Session *session, Done done);
    // relaunch()'s parts: the request (the recorded image and snapshot, the control directory; the
    // agent made ready), what follows a sandbox that runs again, and a resume that failed.
    Result<LaunchRequest> resumeRequest(Session *session, RuntimeManager *runtime);
    void resumed(Session *session, const QString &from, const Done &done);
    void keepSuspended(Session *session, const Error &why, const Done &done);
    void deleteSnapshot(Session *session); // best effort: the record's snapshot, if any

    SessionManager *m_sessions;
    QNetworkAccessManager *m_network;
    std::function<RuntimeManager *()> m_runtime;
    std::function<const ServerIdentity *()> m_identity;
    SystemClock m_clock;
    QString m_defaultImage;
    Entry &makeEntry(Session *session, RuntimeManager *runtime);
    void adopt(Session *session);
    void dropEntry(const QString &sessionId);

    std::map<QString, Entry> m_entries; // by session id: sandboxes this engine run drives
    QStringList m_toAdopt; // sessions whose recorded sandbox waits for a healthy runtime
};

} // namespace isolation
