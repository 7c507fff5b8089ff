// The Engine facade: the one object a face (tray or headless server) binds to. It wires the
// modules together, owns their lifetimes and exposes state as properties and signals; it holds
// no behaviour of its own beyond that wiring.
#pragma once

#include "core/instancelock.h"
#include "core/paths.h"
#include "core/result.h"
#include "core/settings.h"
#include "enginestate.h"
#include "tunnel/tunnelclient.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>

#include <memory>

namespace isolation {

class LocalApiServer;

class Engine final : public QObject
{
    Q_OBJECT
    Q_PROPERTY(isolation::EngineState state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString stateReason READ stateReason NOTIFY stateChanged)

public:
    explicit Engine(Paths paths, QObject *parent = nullptr);
    ~Engine() override;

    // Takes the state directory's lock, opens the LocalAPI and starts working.
    // Fails (and leaves nothing running) when another engine owns the state directory.
    Status start();
    // Shuts down: closes the LocalAPI and the tunnel at once, releases the lock. Emits stopped() once.
    void stop();
    // Like stop(), but drains the tunnel first (open calls finish, up to `bound`). Needs the
    // event loop to keep running until stopped().
    void shutdown(std::chrono::milliseconds bound = std::chrono::milliseconds(5000));

    // Opens the tunnel to the hub (pairing calls this once paired; replaces any tunnel before)
    // and serves `ping` and `server.status` on it. The state follows the tunnel: online when up,
    // reconnecting when not. Fails when the options cannot work.
    Result<void, TunnelError> openTunnel(TunnelClient::Options options);
    TunnelClient *tunnel() const { return m_tunnel.get(); }

    EngineState state() const { return m_state; }
    // One line saying the state and why, for tooltips and `status`.
    QString stateReason() const { return m_reason; }
    QJsonObject status() const;

    const Paths &paths() const { return m_paths; }
    Settings &settings() { return m_settings; }

Q_SIGNALS:
    void stateChanged();
    void stopped();

private:
    void setState(EngineState state, const QString &reason);
    void registerRoutes();
    void onTunnelState();

    Paths m_paths;
    Settings m_settings;
    InstanceLock m_lock;
    std::unique_ptr<LocalApiServer> m_localApi;
    SystemClock m_clock;
    std::unique_ptr<TunnelClient> m_tunnel;
    EngineState m_state = EngineState::Stopped;
    QString m_reason;
    QDateTime m_startedAt;
};

} // namespace isolation
