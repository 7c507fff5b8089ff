// Launches one session's sandbox on the runtime and takes it through pause, resume and delete:
// its image built first when devcontainer.json asks for one (DevcontainerBuild, on a worker
// thread), then created through the lifecycle API with the worktree bind-mounted at /workspace
// (the mount policy is checked before anything is sent), then execd awaited, the worktree's write
// access checked, the session's secrets delivered at run time (never in the create request) and
// postCreateCommand run. On the event loop.
#pragma once

#include "devcontainerbuild.h"
#include "runtime/execdclient.h"
#include "sandbox/sandboxrecord.h"
#include "sandboxerror.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace isolation {

class LifecycleClient;
struct LifecycleError;
class SecretVault;

struct LaunchRequest
{
    QString sessionId;
    QString worktree; // on the host, inside the engine's session directory; mounted at /workspace
    // On the host, inside the session directory too; mounted at /run/isolation (SandboxControl) and
    // named by ISOLATION_CONTROL in the container's environment. Empty: no way back to the engine.
    QString controlDirectory;
    QString image;
    // Restore from this snapshot of the runtime's instead of starting `image` afresh (resume after a
    // suspend); postCreateCommands are not run again then — their effect is in the snapshot.
    QString snapshotId;
    QHash<QString, QString> env; // the container's environment: never a secret (Docker keeps it on disk)
    QStringList postCreateCommands; // run once, in order, after the sandbox is up
    QStringList entrypoint {QStringLiteral("tail"), QStringLiteral("-f"), QStringLiteral("/dev/null")};
    // Where secrets go as files (a tmpfs in the sandbox); empty: the environment of commands only.
    QString secretsDirectory = QStringLiteral("/dev/shm/isolation-secrets");
    std::optional<int> timeoutSeconds; // none: the sandbox lives until deleted
    // devcontainer.json's image to build (reused when built before); its tag replaces `image`.
    // Not done when restoring a snapshot.
    std::optional<DevcontainerBuild> build;

    // The request for a worktree: its devcontainer.json (DevcontainerConfig) chooses the image (or
    // the build of one), the environment and postCreateCommand; without one, `defaultImage` and
    // nothing else.
    static Result<LaunchRequest, SandboxError> fromWorkspace(
        const QString &sessionId, const QString &worktree, const QString &defaultImage);
};

struct LaunchTimeouts
{
    int runningMs = 120000; // created → Running (the runtime may pull the image)
    int execdMs = 60000; // Running → execd answers /ping
    int pollMs = 250;
};

class SandboxLauncher final : public QObject
{
    Q_OBJECT
    Q_PROPERTY(isolation::SandboxState state READ state NOTIFY stateChanged)
public:
    using Callback = std::function<void(Result<void, SandboxError>)>;
    static constexpr const char *kWorkspace = "/workspace";

    // `network` and `lifecycle` must outlive this object.
    SandboxLauncher(QNetworkAccessManager *network, LifecycleClient *lifecycle, QObject *parent = nullptr);
    // The sandbox stays (remove() it first when it should go); one whose create request is still
    // out is deleted when the answer comes, since nothing would know it.
    ~SandboxLauncher() override;

    void setTimeouts(LaunchTimeouts timeouts) { m_timeouts = timeouts; }

    // Idle, Deleted or Failed → Running. `secrets` (may be null) must outlive the sandbox: it is
    // read again for every command (command()). A launch that fails deletes what it created.
    // A build runs on a worker thread with Docker (DOCKER_HOST honoured); remove() or the
    // destruction of this object cancels it. Every callback here runs once, later, on this
    // object's thread (not after its destruction).
    void launch(LaunchRequest request, const SecretVault *secrets, Callback done);
    // Takes charge of a sandbox an earlier run of the engine launched (its id and request from the
    // session's record): Running (execd answers again) or Paused, as the runtime has it; nothing
    // is created, prepared or run again. A sandbox the runtime does not have, or has in another
    // state, fails the adoption (Failed; nothing deleted: the runtime's own clean-up decides).
    void adopt(LaunchRequest request, const QString &sandboxId, const SecretVault *secrets, Callback done);
    void pause(Callback done); // Running → Paused
    // Running: a snapshot through the lifecycle API, awaited until Ready (the sandbox keeps
    // running); `done` with its id. A snapshot that fails or takes longer than `runningMs` is
    // deleted again and fails the call.
    void snapshot(const QString &name, std::function<void(Result<QString, SandboxError>)> done);
    void resume(Callback done); // Paused → Running (execd answers again)
    // Deletes the sandbox from any state; a launch in flight ends with Cancelled. `done` once
    // nothing is left: while a create is in flight, after its answer (what it made deleted).
    void remove(Callback done);

    SandboxState state() const { return m_state; }
    QString sandboxId() const { return m_id; }
    const LaunchRequest &request() const { return m_request; }
    // execd of the sandbox: set once it answered, valid until the next launch() or this object's
    // destruction (stop agents using it first).
    ExecdClient *execd() const { return m_execd.get(); }
    // A command for the sandbox in /workspace with the session's secrets in its environment.
    CommandRequest command(const QString &shellCommand) const;
    // What postCreateCommand printed (stdout and stderr, redacted).
    QString postCreateOutput() const { return m_postCreateOutput; }

Q_SIGNALS:
    void stateChanged(isolation::SandboxState state);
    // A line of the image build's output (Building), as it comes.
    void buildOutput(const QString &line);

private:
    void setState(SandboxState state);
    void buildImage(quint64 generation);
    void create(quint64 generation);
    void pollRunning(quint64 generation);
    void pollSnapshot(quint64 generation, const QString &snapshotId, QElapsedTimer since,
        std::function<void(Result<QString, SandboxError>)> done);
    // execd's endpoint, then `then` (default: wait for execd, then prepare the sandbox).
    void fetchEndpoint(quint64 generation, std::function<void()> then = {});
    void waitForExecd(quint64 generation, std::function<void()> then);
    // `then` when execd refuses a request without its access token; `open(why)` when it does not.
    void checkExecdClosed(quint64 generation, std::function<void()> then, std::function<void(const QString &)> open);
    void setAccessToken(QByteArray token); // registered with the log redactor while this launcher has it
    void prepare(quint64 generation);
    void runPostCreate(quint64 generation, int index);
    void succeed();
    void fail(SandboxError error);
    void later(Callback done, Result<void, SandboxError> result);
    static SandboxError fromLifecycle(const LifecycleError &e, const QString &what);

    QNetworkAccessManager *m_network;
    LifecycleClient *m_lifecycle;
    LaunchTimeouts m_timeouts;
    LaunchRequest m_request;
    const SecretVault *m_secrets = nullptr;
    std::unique_ptr<ExecdClient> m_execd;
    QByteArray m_token; // execd's access token (execdtoken.h)
    SandboxState m_state = SandboxState::Idle;
    QString m_id;
    quint64 m_generation = 0; // bumped by remove(): callbacks of older steps stop
    Callback m_pending; // the launch or resume in flight
    Callback m_removedAfterCreate; // a remove() while the create was in flight: done once it answered
    QElapsedTimer m_since;
    QString m_postCreateOutput;
    std::shared_ptr<std::atomic_bool> m_buildCancel; // the build in flight's
    QThreadPool m_pool; // the image build (DockerClient blocks); last: waited for first
};

} // namespace isolation
