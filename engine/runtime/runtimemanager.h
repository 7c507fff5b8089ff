// The engine's handle on the sandbox runtime: keeps the pinned lifecycle container running and
// healthy (start, monitor, restart, upgrade) and says how to reach it. Docker calls run on a
// worker thread of its own, one at a time; results and state changes arrive on this object's thread.
#pragma once

#include "lifecyclecontainer.h"
#include "mountpolicy.h"
#include "runtimepin.h"
#include "runtimestate.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>
#include <QProcessEnvironment>
#include <QThreadPool>
#include <QTimer>
#include <QUrl>

#include <atomic>
#include <functional>
#include <memory>

namespace isolation {

class CredentialStore;
class DockerProxy;

struct RuntimeConfig
{
    QString dataDir; // runtime.json and runtime/ go here
    QString sessionDir; // the only host directory sandboxes may mount from
    RuntimePin pin = RuntimePin::builtIn();
    QString lifecycleImage; // empty: the pin's
    QString execdImage; // empty: the pin's
    quint16 port = 0; // the lifecycle server on 127.0.0.1; 0: the system chooses
    int healthIntervalMs = 5000;
    // Once healthy and while nothing shows the runtime live (setWatched), check this often
    // instead (at least healthIntervalMs); 0: always healthIntervalMs.
    int idleHealthIntervalMs = 0;
    int startTimeoutMs = 60000;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment(); // DOCKER_HOST
};

class RuntimeManager final : public QObject
{
    Q_OBJECT
    Q_PROPERTY(isolation::RuntimeState state READ state NOTIFY stateChanged)

public:
    // `apiKeyStore` keeps the lifecycle server's API key (minted on first start).
    RuntimeManager(RuntimeConfig config, std::unique_ptr<CredentialStore> apiKeyStore, QObject *parent = nullptr);
    ~RuntimeManager() override;

    // Reads (or mints) the API key, then brings the runtime up and watches it. Never blocks.
    void start();
    // Stops watching and waits for Docker calls in flight. The container keeps running.
    void stop();
    // Restarts the lifecycle container (brings it up when there is none); `done` runs once.
    void restart(std::function<void(Status)> done = {});
    // Removes this engine's lifecycle containers (tests, uninstall); `done` runs once.
    void remove(std::function<void(Status)> done = {});

    // Something shows the runtime live (the tray's Runtime tab): check every healthIntervalMs
    // even when healthy, rather than every idleHealthIntervalMs.
    void setWatched(bool watched);

    RuntimeState state() const { return m_state; }
    QString reason() const { return m_reason; }
    QJsonObject status() const;

    // Where the lifecycle API answers (http://127.0.0.1:PORT/v1), valid while Healthy.
    QUrl lifecycleUrl() const;
    QByteArray apiKey() const { return m_apiKey; }
    const MountPolicy &mountPolicy() const { return m_mounts; }
    QString lifecycleImage() const;
    QString execdImage() const;
    QString engineId() const { return m_engineId; }
    // The Docker network this user's sandboxes join ("isolation-sandboxes-<uid>"): one per user, not
    // per engine, so engines made and dropped (tests, a moved data directory) leave no network each;
    // inter-container traffic is off on it, so sandboxes sharing it still cannot reach each other.
    static QString sandboxNetwork();
    int restarts() const { return m_restarts; }

Q_SIGNALS:
    void stateChanged();

private:
    void setState(RuntimeState state, const QString &reason);
    void begin();
    // The Docker proxy the runtime's container uses (dockerproxy.h), serving; false (and the state
    // Failed) when it cannot be.
    bool ensureProxy();
    void loadApiKey();
    LifecycleContainer::Spec spec() const;
    using Job = std::function<LifecycleContainer::Outcome(LifecycleContainer &)>;
    void run(Job job, std::function<void(const LifecycleContainer::Outcome &)> done = {});
    void apply(const LifecycleContainer::Outcome &outcome);
    void monitor();

    RuntimeConfig m_config;
    std::unique_ptr<CredentialStore> m_keyStore;
    MountPolicy m_mounts;
    QString m_engineId;
    QByteArray m_apiKey;
    QThreadPool m_pool;
    std::unique_ptr<DockerProxy> m_proxy;
    std::shared_ptr<std::atomic_bool> m_cancel = std::make_shared<std::atomic_bool>(false);
    void pace(); // the monitor's interval for the state and whether it is watched
    QTimer m_monitor;
    bool m_running = false;
    int m_pending = 0; // Docker operations queued or running
    bool m_keyLoading = false;
    int m_idleTicks = 0;
    bool m_watched = false;
    RuntimeState m_state = RuntimeState::Absent;
    QString m_reason;
    LifecycleContainer::Outcome m_last;
    int m_restarts = 0;
    QDateTime m_healthyAt;
};

} // namespace isolation
