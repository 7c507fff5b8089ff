// The Engine facade: the one object `isolation-server up` runs. It wires the modules together,
// owns their lifetimes and exposes commands, state and typed snapshots (properties, signals, the
// LocalAPI); it hands out none of its modules (tests reach them through engineprobe.h) and holds
// no behaviour of its own beyond that wiring.
#pragma once

#include "core/activitylog.h"
#include "core/healthwarnings.h"
#include "core/instancelock.h"
#include "core/paths.h"
#include "core/result.h"
#include "core/settings.h"
#include "localapi/enginestate.h"
#include "credentials/credentialstore.h"
#include "net/proxyrules.h"
#include "pairing/pairingflow.h"
#include "runtime/runtimestate.h"
#include "tunnel/tunnelclient.h"

#include <QDateTime>
#include <QJsonObject>
#include <QObject>

#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace isolation {

class Doorman;
class EngineEvents;
class EngineMetrics;
class Heartbeat;
class HubClient;
class LocalApiServer;
class PairingController;
struct ServerIdentity;
class RuntimeManager;
class SessionManager;
class SessionSandboxes;
class HttpServer;
struct HttpRequest;
class HttpReply;

struct EngineOptions
{
    // Where the credentials live (`up --credential-store`). Unset: the store this engine's identity
    // was found or saved in before (settings key credentials/store), else the keychain. Auto: that
    // remembered store, else the keychain when the session has one, else the file. Keychain or
    // File: that store, whatever was remembered. The store an identity is in is remembered, so an
    // engine started by the tray, by an autostart entry or by the systemd unit is the same paired
    // computer (docs/architecture.md, "Credentials").
    std::optional<CredentialStoreKind> credentialStore;
    // "ADDRESS:PORT": GET /metrics and GET /ready over TCP too, for a Prometheus scraper (`up
    // --metrics-listen`); empty: only on the LocalAPI.
    QString metricsListen;
};

class Engine final : public QObject
{
    Q_OBJECT
    Q_PROPERTY(isolation::EngineState state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString stateReason READ stateReason NOTIFY stateChanged)

public:
    explicit Engine(Paths paths, EngineOptions options = {}, QObject *parent = nullptr);
    ~Engine() override;

    // Takes the state directory's lock, opens the LocalAPI, reads the stored credentials and
    // starts working. Fails (and leaves nothing running) when another engine owns the state directory.
    Status start();
    // Shuts down at once: stops heartbeat and tunnel, closes the LocalAPI, releases the lock.
    // Emits stopped() once.
    void stop();
    // Like stop(), but drains the tunnel first (open calls finish, up to `bound`). Needs the
    // event loop to keep running until stopped().
    void shutdown(std::chrono::milliseconds bound = std::chrono::milliseconds(5000));

    // Opens the tunnel to the hub (the engine does this itself once paired; tests call it with
    // their own options). Replaces any tunnel before and serves `ping` and `server.status` on it.
    // Fails when the options cannot work.
    Result<void, TunnelError> openTunnel(TunnelClient::Options options);

    EngineState state() const { return m_state; }
    // One line saying the state and why, for tooltips and `status`.
    QString stateReason() const { return m_reason; }
    QJsonObject status() const;

    // Pairing (device-code flow). `hub` empty means the configured hub.
    Status startPairing(const QUrl &hub = {}, const QString &name = {});
    void cancelPairing();
    QJsonObject pairingStatus() const;
    // Disconnect / Connect (the user's toggle): disconnected closes the tunnel and stops the
    // heartbeat, so the hub shows this server offline; pairing, sessions and runtime stay. Kept in
    // the settings, so a restarted engine stays disconnected. Fails (InvalidInput) when not paired.
    Status setConnected(bool connected);
    bool connected() const;

    // Forgets this server's credentials, telling the hub first when it can be reached.
    void unpair();

    // The sandbox runtime's status (as GET /v1/runtime answers it).
    QJsonObject runtimeStatus() const;

    // Recent events for the Activity view.
    ActivityLog &activity() { return m_activity; }
    // The health warnings shown now, as `status()` carries them ("warnings").
    QJsonArray warnings() const { return m_health.toJson(); }


    const Paths &paths() const { return m_paths; }
    Settings &settings() { return m_settings; }

Q_SIGNALS:
    void stateChanged();
    void pairingChanged(); // pairingStatus() changed (code issued, approved, denied, expired...)
    void runtimeChanged(); // the runtime appeared, went, or changed state
    void healthChanged(); // warnings() changed
    void stopped();

private:
    // The modules, for the engine's own parts (EngineEvents) and tests (engineprobe.h) only: every
    // face uses the commands above or the LocalAPI. Null when the engine is stopped (the runtime
    // also when it is switched off).
    friend class EngineEvents;
    friend struct EngineProbe;
    TunnelClient *tunnel() const { return m_tunnel.get(); }
    RuntimeManager *runtime() const { return m_runtime.get(); }
    SessionManager *sessions() const { return m_sessions.get(); }
    SessionSandboxes *sandboxes() const { return m_sandboxes.get(); }

    void setState(EngineState state, const QString &reason);
    void updateState();
    void onPaired();
    void onUnpaired(const QString &reason);
    QJsonObject heartbeatReport() const;
    void registerRoutes();
    void addControlRoutes(HttpServer &http);
    void addPairingRoutes(HttpServer &http);
    void addRuntimeRoutes(HttpServer &http);
    void addHealthRoutes(HttpServer &http); // GET /ready, GET /metrics (engine_health.cpp)
    Status listenForMetrics();
    // {"ready": paired, tunnel up and runtime healthy, "reasons": [what is not, in words]}.
    QJsonObject readiness() const;
    QByteArray metricsText() const;
    void routePair(const HttpRequest &request, HttpReply reply);
    QJsonObject settingsJson() const;
    void closeTunnel();
    void startDoorman();
    TunnelClient::Options tunnelOptions(const ServerIdentity &identity) const;
    void startRuntime();
    // The store for the identity (empty entry) or a secret beside it, of m_storeChoice's kind.
    std::unique_ptr<CredentialStore> makeCredentialStore(const QString &entry) const;
    void rememberCredentialStore(); // the identity's store, once it holds one (credentials/store)
    void connectToHub(); // heartbeat and tunnel, when paired and connected
    void updateHealth(); // raises and clears the warnings from the state (engine_health.cpp)

    Paths m_paths;
    EngineOptions m_options;
    Settings m_settings;
    CredentialStoreKind m_storeChoice = CredentialStoreKind::Keychain; // resolved in start()
    ActivityLog m_activity;
    HealthWarnings m_health;
    RuntimeState m_runtimeState = RuntimeState::Absent;
    InstanceLock m_lock;
    QNetworkAccessManager *m_network = nullptr;
    ProxyRules m_proxy; // HTTPS_PROXY, HTTP_PROXY, NO_PROXY: every request to the hub, and the tunnel
    std::unique_ptr<LocalApiServer> m_localApi;
    std::unique_ptr<EngineEvents> m_events; // with m_localApi: GET /v1/events and /v1/snapshot
    std::unique_ptr<EngineMetrics> m_metrics; // with m_events: it reads their stream
    std::unique_ptr<HttpServer> m_metricsHttp; // --metrics-listen
    std::unique_ptr<PairingController> m_pairing;
    std::unique_ptr<HubClient> m_hub;
    std::unique_ptr<Heartbeat> m_heartbeat;
    SystemClock m_clock;
    std::unique_ptr<TunnelClient> m_tunnel;
    std::unique_ptr<Doorman> m_doorman; // with the tunnel, while paired: the views' only way in
    std::unique_ptr<RuntimeManager> m_runtime;
    std::unique_ptr<SessionManager> m_sessions;
    std::unique_ptr<SessionSandboxes> m_sandboxes; // after m_sessions: goes first
    EngineState m_state = EngineState::Stopped;
    QString m_reason;
    QString m_storeError;
    QString m_storeProblem; // PairingController::storeFailed's problem
    bool m_loaded = false;
    QDateTime m_startedAt;
};

} // namespace isolation
