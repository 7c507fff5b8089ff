// The pinned lifecycle server's container, driven through Docker: obtains and verifies the
// images, writes the server's TOML, adopts, creates, restarts or upgrades the container and waits
// for /health. Blocking; RuntimeManager runs it on a worker thread, one operation at a time.
#pragma once

#include "dockerclient.h"
#include "lifecycleconfig.h"
#include "runtimepin.h"
#include "runtimestate.h"

#include <QDateTime>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace isolation {

class LifecycleContainer
{
public:
    struct Spec
    {
        QString engineId; // labels this engine's containers (a hash of its data directory)
        RuntimePin pin;
        QString lifecycleImage; // the image to run (the pin's, or a setting)
        QString digestsFile; // runtime.json
        QString configDir; // holds config.toml; bind-mounted read-only at /etc/opensandbox
        QString proxyDirectory; // the engine's DockerProxy serves its socket there; required
        LifecycleConfig config;
        quint16 port = 0; // host port on 127.0.0.1; 0: the system chooses
        int startTimeoutMs = 60000;
        // Called from the worker thread when a long step begins (Upgrading, Restarting...).
        std::function<void(RuntimeState, const QString &)> progress;
        // Set when the engine stops: Docker calls and waits give up promptly.
        std::shared_ptr<const std::atomic_bool> cancel;
    };

    struct Outcome
    {
        RuntimeState state = RuntimeState::Failed;
        QString reason;
        QString containerId;
        QString containerName;
        QString containerState; // Docker's: running, exited, ...
        QString image;
        QString digest;
        quint16 port = 0;
        QDateTime startedAt;
        int restarts = 0; // this operation restarted or re-created a dead container
    };

    LifecycleContainer(DockerClient docker, Spec spec);

    // Docker reachable and both images here with the digests they must have (state Starting), or why not.
    Outcome prepare();
    // Start-up: Docker reachable, images verified, config written, the container adopted or
    // created (or upgraded: the old one removed only once the new one is healthy), /health answered.
    Outcome bringUp();
    // The monitor's look: a container that is gone or stopped is brought back; a running one is probed.
    Outcome check(const QString &containerId);
    Outcome restart(const QString &containerId);
    // Removes every lifecycle container of this engine (uninstall, tests).
    Result<void, DockerError> removeAll();

    // GET http://127.0.0.1:PORT/health answered 200 within the timeout.
    static bool probeHealth(quint16 port, int timeoutMs);
    static QString label(const char *key);

private:
    Outcome fail(RuntimeState state, const QString &reason) const;
    Outcome fromDocker(const DockerError &e) const;
    Result<QString, Outcome> verifiedImage(const QString &image, const QString &pinnedDigest);
    // The sandboxes' network (config.network) exists as a bridge with inter-container traffic off
    // and ports published on 127.0.0.1 by default; made, or remade while unused, when it is not.
    std::optional<Outcome> ensureNetwork();
    QJsonObject containerSpec(const QString &imageId, const QString &configHash, quint16 port) const;
    Outcome describe(const QString &id, RuntimeState state, const QString &reason) const;
    Outcome waitHealthy(const QString &id, RuntimeState whileWaiting);
    // bringUp()'s last part: a new container of `imageId` and `configHash` made and started; the
    // `old` ones removed once it is healthy (an upgrade), or kept running when it is not.
    Outcome createAndStart(const QString &imageId, const QString &configHash, const QStringList &old);

    DockerClient m_docker;
    Spec m_spec;
    QString m_digest;
};

} // namespace isolation
