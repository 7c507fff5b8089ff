#include "engine.h"

#include "core/helperprograms.h"
#include "core/huburl.h"
#include "core/logging.h"
#include "core/version.h"
#include "crypto/ed25519.h"
#include "doorman/doorman.h"
#include "engineevents.h"
#include "heartbeat/heartbeat.h"
#include "hubapi/hubclient.h"
#include "localapi/enginemetrics.h"
#include "localapi/localapiserver.h"
#include "pairing/pairingcontroller.h"
#include "runtime/runtimemanager.h"
#include "sessions/sessionmanager.h"
#include "sessions/sessionroutes.h"
#include "sessions/sessionsandboxes.h"

#include <QCoreApplication>
#include <QHostInfo>
#include <QNetworkAccessManager>
#include <QPointer>
#include <QThread>

namespace isolation {

Engine::Engine(Paths paths, EngineOptions options, QObject *parent)
    : QObject(parent)
    , m_paths(std::move(paths))
    , m_options(options)
    , m_settings(m_paths.settingsFile())
    , m_lock(m_paths.lockFile())
    , m_reason(tr("Not running"))
{
    // The warnings follow the state they are read from.
    connect(this, &Engine::stateChanged, this, &Engine::updateHealth);
    connect(this, &Engine::runtimeChanged, this, &Engine::updateHealth);
    connect(&m_health, &HealthWarnings::changed, this, &Engine::healthChanged);
}

Engine::~Engine()
{
    stop();
}

Status Engine::start()
{
    if (m_state != EngineState::Stopped)
        return {};
    if (auto s = m_paths.ensure(); !s)
        return s;
    if (auto s = m_lock.acquire(); !s) {
        const QString where = m_paths.overridden() ? m_paths.home() : m_paths.dataDir();
        return Error {s.error().code, QStringLiteral("%1 (%2)").arg(s.error().message, where)};
    }

    m_localApi = std::make_unique<LocalApiServer>();
    registerRoutes();
    Status listening = m_localApi->listen(m_paths.socketPath());
    if (listening)
        listening = listenForMetrics();
    if (!listening) {
        m_localApi.reset();
        m_metrics.reset();
        m_events.reset();
        m_lock.release();
        return listening;
    }

    m_network = new QNetworkAccessManager(this);
    m_proxy = ProxyRules::fromEnvironment();
    m_network->setProxyFactory(new ProxyRulesFactory(m_proxy));
    if (!m_proxy.isEmpty())
        qCInfo(lcCore).noquote() << "proxy for the hub:" << m_proxy.describe();
    for (const QString &problem : m_proxy.problems())
        qCWarning(lcCore).noquote() << problem;
    // The activity log survives restarts, in the state directory this engine now owns.
    if (auto kept = m_activity.keepIn(m_paths.dataDir() + QStringLiteral("/activity.jsonl")); !kept)
        qCWarning(lcCore).noquote() << kept.error().message;
    SessionManager::Options sessionOptions {m_paths.dataDir(), m_paths.cacheDir(),
        m_settings.value(QStringLiteral("cache/maxBytes"), WarmCache::kDefaultMaxBytes).toLongLong(),
        m_settings.value(QStringLiteral("cache/spareSessions"), true).toBool(), &m_activity};
    m_sessions = std::make_unique<SessionManager>(sessionOptions, m_network);
    m_sessions->load();
    m_sandboxes = std::make_unique<SessionSandboxes>(
        m_sessions.get(), m_network, [this] { return m_runtime.get(); },
        [this]() -> const ServerIdentity * { return m_pairing ? m_pairing->identity() : nullptr; },
        m_settings.sandboxImage());
    connect(this, &Engine::runtimeChanged, m_sandboxes.get(), &SessionSandboxes::runtimeChanged);
    m_events->watch(m_sessions.get());
    // The option wins; else the store this engine's identity is in (remembered when it was found
    // or saved there), so every way of starting the engine finds the same identity.
    const auto remembered
        = credentialStoreKindFromName(m_settings.value(QStringLiteral("credentials/store")).toString());
    if (m_options.credentialStore && *m_options.credentialStore != CredentialStoreKind::Auto)
        m_storeChoice = *m_options.credentialStore;
    else if (remembered && *remembered != CredentialStoreKind::Auto)
        m_storeChoice = *remembered;
    else
        m_storeChoice = m_options.credentialStore.value_or(CredentialStoreKind::Keychain);
    m_pairing = std::make_unique<PairingController>(makeCredentialStore({}), m_network);
    connect(m_pairing.get(), &PairingController::loaded, this, [this] {
        m_loaded = true;
        updateState();
    });
    connect(m_pairing.get(), &PairingController::paired, this, &Engine::onPaired);
    connect(m_pairing.get(), &PairingController::unpaired, this, &Engine::onUnpaired);
    connect(m_pairing.get(), &PairingController::pairingChanged, this, [this] {
        updateState();
        Q_EMIT pairingChanged();
    });
    connect(m_pairing.get(), &PairingController::storeFailed, this, [this](const QString &message, const QString &problem) {
        m_loaded = true;
        m_storeError = message;
        m_storeProblem = problem;
        updateState();
    });

    m_startedAt = QDateTime::currentDateTimeUtc();
    qCInfo(lcCore) << "engine" << ISOLATION_VERSION << "started; state in" << m_paths.dataDir() << "; credentials in"
                   << m_pairing->store()->describe();
    setState(EngineState::NotPaired, tr("Starting: reading this computer's credentials"));
    m_pairing->load();
    startRuntime();
    return {};
}

std::unique_ptr<CredentialStore> Engine::makeCredentialStore(const QString &entry) const
{
    const QString file = m_paths.dataDir() + QStringLiteral("/credentials.json");
    const QString stateDir = m_paths.overridden() ? m_paths.home() : m_paths.dataDir();
    switch (m_storeChoice) {
    case CredentialStoreKind::File:
        return std::make_unique<FileCredentialStore>(file, entry);
    case CredentialStoreKind::Keychain:
        break;
    case CredentialStoreKind::Auto:
        return std::make_unique<AutoCredentialStore>(std::make_unique<KeychainCredentialStore>(stateDir, entry),
            std::make_unique<FileCredentialStore>(file, entry));
    }
    return std::make_unique<KeychainCredentialStore>(stateDir, entry);
}

void Engine::rememberCredentialStore()
{
    if (!m_pairing || !m_pairing->identity())
        return;
    const QString kind = credentialStoreKindName(m_pairing->store()->kind());
    if (m_settings.value(QStringLiteral("credentials/store")).toString() == kind)
        return;
    m_settings.setValue(QStringLiteral("credentials/store"), kind);
    m_settings.sync();
    qCInfo(lcCore).noquote() << "this computer's credentials are in" << m_pairing->store()->describe()
                             << "- every later start without --credential-store uses" << kind;
}

void Engine::startRuntime()
{
    if (!m_settings.runtimeEnabled())
        return;
    // The lifecycle server's API key lives next to the server identity, under its own entry.
    std::unique_ptr<CredentialStore> keyStore = makeCredentialStore(QStringLiteral("runtime-api-key"));
    RuntimeConfig config;
    config.dataDir = m_paths.dataDir();
    config.sessionDir = m_paths.dataDir() + QStringLiteral("/sessions");
    config.lifecycleImage = m_settings.runtimeLifecycleImage();
    config.execdImage = m_settings.runtimeExecdImage();
    config.port = m_settings.runtimePort();
    config.healthIntervalMs = m_settings.runtimeHealthIntervalMs();
    config.idleHealthIntervalMs = m_settings.runtimeIdleHealthIntervalMs();
    m_runtime = std::make_unique<RuntimeManager>(std::move(config), std::move(keyStore));
    connect(m_runtime.get(), &RuntimeManager::stateChanged, this, [this] {
        const RuntimeState state = m_runtime->state();
        if (state != m_runtimeState) {
            m_runtimeState = state;
            m_activity.record(QStringLiteral("runtime"), m_runtime->reason());
        }
        Q_EMIT runtimeChanged();
    });
    m_runtime->start();
    Q_EMIT runtimeChanged();
}

QJsonObject Engine::runtimeStatus() const
{
    if (!m_runtime)
        return QJsonObject {{QStringLiteral("state"), runtimeStateName(RuntimeState::Absent)},
            {QStringLiteral("reason"),
                m_settings.runtimeEnabled()
                    ? tr("The engine is not running")
                    : tr("The runtime is switched off (ISOLATION_RUNTIME=off or runtime/enabled=false)")}};
    return m_runtime->status();
}

void Engine::stop()
{
    if (m_state == EngineState::Stopped)
        return;
    qCInfo(lcCore) << "engine stopping";
    closeTunnel();
    m_sandboxes.reset(); // sandboxes keep running: sessions survive the engine
    m_sessions.reset(); // joins the sessions' workers; what a save left open is settled next start
    if (m_heartbeat)
        m_heartbeat->stop();
    m_heartbeat.reset();
    m_hub.reset();
    m_pairing.reset();
    if (m_runtime)
        m_runtime->stop(); // the container keeps running; the next start adopts it
    if (m_runtime) {
        m_runtime.reset();
        m_runtimeState = RuntimeState::Absent;
        Q_EMIT runtimeChanged();
    }
    if (m_localApi) {
        m_localApi->close();
        m_localApi.reset();
    }
    m_metricsHttp.reset();
    m_metrics.reset();
    m_events.reset(); // after the LocalAPI: its routes point at it
    delete m_network;
    m_network = nullptr;
    m_lock.release();
    m_loaded = false;
    m_storeError.clear();
    m_storeProblem.clear();
    setState(EngineState::Stopped, tr("Not running"));
    Q_EMIT stopped();
}

void Engine::shutdown(std::chrono::milliseconds bound)
{
    if (!m_tunnel || m_tunnel->state() != TunnelState::Connected) {
        stop();
        return;
    }
    connect(m_tunnel.get(), &TunnelClient::drained, this, &Engine::stop, Qt::QueuedConnection);
    m_tunnel->drain(bound);
}

Result<void, TunnelError> Engine::openTunnel(TunnelClient::Options options)
{
    if (m_state == EngineState::Stopped)
        return TunnelError::invalidConfig(tr("the engine is not running"));
    closeTunnel();
    m_tunnel = std::make_unique<TunnelClient>(std::move(options), m_clock);
    RpcDispatcher &rpc = m_tunnel->rpc();
    rpc.add(QStringLiteral("ping"), [](const QJsonObject &params) -> Result<QJsonObject> {
        const QJsonValue echo = params.value(QStringLiteral("echo"));
        return QJsonObject {
            {QStringLiteral("pong"), true}, {QStringLiteral("echo"), echo.isUndefined() ? QJsonValue() : echo}};
    });
    rpc.add(QStringLiteral("server.status"), [this](const QJsonObject &) -> Result<QJsonObject> { return status(); });
    SessionRoutes::addCalls(rpc, [this] { return m_sessions.get(); });
    if (m_sandboxes)
        m_sandboxes->addCalls(rpc);
    connect(m_tunnel.get(), &TunnelClient::stateChanged, this, &Engine::updateState);
    connect(m_tunnel.get(), &TunnelClient::connected, this, [this] {
        if (m_metrics)
            m_metrics->countTunnelConnected();
    });
    connect(m_tunnel.get(), &TunnelClient::disconnected, this, [this] {
        if (m_metrics)
            m_metrics->countTunnelDropped();
    });
    startDoorman();
    auto started = m_tunnel->start();
    updateState();
    return started;
}

void Engine::startDoorman()
{
    const ServerIdentity *id = m_pairing ? m_pairing->identity() : nullptr;
    if (!id || !m_sandboxes || id->hubPublicKey.isEmpty())
        return;
    Doorman::Options o;
    o.serverId = id->serverId;
    o.hubPublicKey = id->hubPublicKey;
    o.ptyRelayProgram = helpers::program(QStringLiteral("isolation-pty-relay"));
    m_doorman = std::make_unique<Doorman>(o, m_clock, m_sandboxes.get());
    m_doorman->setAgents(m_sandboxes.get());
    // A view token opens a view once, across restarts too (docs/formats.md, "Used view-token nonces").
    if (auto kept = m_doorman->sessions().keepUsedNoncesIn(
            m_paths.dataDir() + QStringLiteral("/used-view-nonces.json"), m_clock.unixSeconds());
        !kept)
        qCWarning(lcCore).noquote() << "views:" << kept.error().message;
    m_doorman->attach(m_tunnel.get());
    // The local front door, for a browser on this computer (the same tokens). Not having it is
    // no reason to stop: views still come through the tunnel.
    const quint16 port = quint16(m_settings.value(QStringLiteral("views/localPort"), 8090).toUInt());
    if (auto listening = m_doorman->listenLocal(QHostAddress::LocalHost, port); !listening)
        qCWarning(lcCore) << "views: no local door on 127.0.0.1:" << port << ":" << listening.error().message;
    else
        qCInfo(lcCore) << "views: local door on 127.0.0.1:" << listening.value();
}

void Engine::closeTunnel()
{
    if (m_doorman) {
        if (m_metrics)
            m_metrics->carryViews(m_doorman->forwarded(), m_doorman->answered(), m_doorman->refused());
        m_doorman->close();
        m_doorman.reset();
    }
    if (!m_tunnel)
        return;
    disconnect(m_tunnel.get(), nullptr, this, nullptr);
    m_tunnel->stop();
    m_tunnel.reset();
}

TunnelClient::Options Engine::tunnelOptions(const ServerIdentity &id) const
{
    TunnelClient::Options o;
    o.hub = id.hubUrl;
    o.serverId = id.serverId;
    o.credential = id.credential.view().toByteArray();
    // The server key signs the handshake; the key stays in the identity, the closure borrows it.
    const SecureBytes key = id.ed25519Private;
    o.sign = [key](const QByteArray &message) {
        auto signature = ed25519Sign(key.view(), message);
        return signature ? signature.value() : QByteArray();
    };
    o.userAgent = QByteArrayLiteral("isolation-engine/" ISOLATION_VERSION);
    o.proxy = m_proxy;
    return o;
}

void Engine::onPaired()
{
    m_loaded = true;
    m_storeError.clear();
    m_storeProblem.clear();
    rememberCredentialStore(); // found at start, or saved just now
    const ServerIdentity *id = m_pairing->identity();
    if (m_sessions)
        m_sessions->setIdentity(*id);
    m_hub = std::make_unique<HubClient>(m_network);
    m_hub->setBaseUrl(id->hubUrl);
    m_hub->setCredential(id->credential.view().toByteArray());
    m_heartbeat = std::make_unique<Heartbeat>(m_hub.get(), [this] { return heartbeatReport(); });
    connect(m_heartbeat.get(), &Heartbeat::beat, this, &Engine::updateState);
    // One wake for both: the tunnel's keepalive goes out with each heartbeat.
    connect(m_heartbeat.get(), &Heartbeat::beat, this, [this] {
        if (m_tunnel)
            m_tunnel->keepaliveSoon();
    });
    connect(m_heartbeat.get(), &Heartbeat::unreachable, this, &Engine::updateState);
    const auto countHeartbeat = [this](bool ok) {
        if (m_metrics)
            m_metrics->countHeartbeat(ok);
    };
    connect(m_heartbeat.get(), &Heartbeat::beat, this, [countHeartbeat] { countHeartbeat(true); });
    connect(m_heartbeat.get(), &Heartbeat::unreachable, this, [countHeartbeat] { countHeartbeat(false); });
    connect(m_heartbeat.get(), &Heartbeat::credentialRefused, this, [countHeartbeat] { countHeartbeat(false); });
    connect(m_heartbeat.get(), &Heartbeat::credentialRefused, this, [this](const QString &code, const QString &why) {
        const QString reason = code == QLatin1String("revoked")
            ? tr("Not paired: this computer was unpaired from Isolation (its credential was "
                 "revoked). Pair it again to reconnect")
            : tr("Not paired: the hub no longer knows this computer (%1). Pair it again").arg(why);
        m_pairing->forget(reason);
    });
    if (connected())
        connectToHub();
    updateState();
}

void Engine::connectToHub()
{
    const ServerIdentity *id = m_pairing ? m_pairing->identity() : nullptr;
    if (!id || !m_heartbeat)
        return;
    m_heartbeat->start();
    if (auto opened = openTunnel(tunnelOptions(*id)); !opened)
        qCWarning(lcCore) << "tunnel not opened:" << opened.error().message;
}

bool Engine::connected() const
{
    return m_settings.value(QStringLiteral("engine/connected"), true).toBool();
}

Status Engine::setConnected(bool on)
{
    if (!m_pairing || !m_pairing->identity())
        return Error::invalidInput(tr("This computer is not paired"));
    if (on != connected()) {
        m_settings.setValue(QStringLiteral("engine/connected"), on);
        m_settings.sync();
        m_activity.record(QStringLiteral("connection"), on ? tr("Connected by the user") : tr("Disconnected by the user"));
    }
    if (on) {
        if (!m_tunnel)
            connectToHub();
    } else {
        closeTunnel();
        if (m_heartbeat)
            m_heartbeat->stop();
    }
    updateState();
    return {};
}

void Engine::onUnpaired(const QString &reason)
{
    if (m_sessions)
        m_sessions->clearIdentity();
    closeTunnel();
    if (m_heartbeat)
        m_heartbeat->stop();
    m_heartbeat.reset();
    m_hub.reset();
    qCInfo(lcCore) << "unpaired:" << reason;
    updateState();
}

void Engine::updateState()
{
    if (m_state == EngineState::Stopped && !m_localApi)
        return;
    const ServerIdentity *id = m_pairing->identity();
    if (id && !connected() && !m_tunnel) {
        setState(EngineState::Disconnected, tr("Disconnected: the cloud cannot reach this computer until you connect"));
        return;
    }
    if (id || m_tunnel) {
        const QString hub = id ? id->hubUrl.host() : m_tunnel->options().hub.host();
        // Online means the hub can reach this machine: the tunnel is up.
        if (m_tunnel && m_tunnel->state() == TunnelState::Connected) {
            setState(EngineState::Online,
                id ? tr("Online: paired with %1 as %2").arg(hub, id->name) : tr("Online: connected to %1").arg(hub));
            return;
        }
        if (m_tunnel && m_tunnel->state() == TunnelState::Disconnected && m_tunnel->lastError()
            && !m_tunnel->lastError()->retryable()) {
            setState(EngineState::Error, tr("Cannot connect to %1: %2").arg(hub, m_tunnel->reason()));
            return;
        }
        QString why = m_tunnel ? m_tunnel->reason() : QString();
        if (m_heartbeat && !m_heartbeat->lastError().isEmpty())
            why = m_heartbeat->lastError();
        setState(
            EngineState::Reconnecting, tr("Reconnecting to %1: %2").arg(hub, why.isEmpty() ? tr("connecting") : why));
        return;
    }
    if (!m_storeError.isEmpty()) {
        setState(EngineState::Error, m_storeError);
        return;
    }
    if (m_pairing->pairing()) {
        setState(EngineState::Pairing, tr("Pairing: approve the code shown for this computer"));
        return;
    }
    if (!m_loaded)
        return;
    const QString outcome = m_pairing->lastOutcome();
    setState(EngineState::NotPaired,
        outcome.startsWith(tr("Not paired")) ? outcome
                                             : tr("Not paired: pair this computer with Isolation to start working"));
}

Status Engine::startPairing(const QUrl &hub, const QString &name)
{
    if (!m_pairing)
        return Error::unavailable(tr("The engine is not running"));
    if (!m_storeError.isEmpty())
        return Error::unavailable(m_storeError);
    const QUrl url = hub.isEmpty() ? m_settings.hubUrl() : hub;
    if (auto checked = HubUrl::check(url); !checked)
        return checked.error(); // refused before it is kept in the settings or anything is sent
    if (!hub.isEmpty() && !qEnvironmentVariableIsSet("ISOLATION_HUB_URL")) {
        m_settings.setHubUrl(hub);
        m_settings.sync();
    }
    const QString host = QHostInfo::localHostName();
    return m_pairing->startPairing(url, name.isEmpty() ? host : name, host, QStringLiteral(ISOLATION_VERSION));
}

void Engine::cancelPairing()
{
    if (m_pairing)
        m_pairing->cancelPairing();
}

void Engine::unpair()
{
    if (!m_pairing || !m_pairing->identity())
        return;
    const QString reason = tr("Not paired: this computer was unpaired");
    if (m_heartbeat)
        m_heartbeat->stop();
    // Tell the hub so it stops listing this server; unpair locally whether or not it answers.
    QPointer<Engine> self(this);
    m_hub->setTimeout(5000);
    m_hub->call("POST", QStringLiteral("/v1/servers/self/unpair"), {}, [self, reason](Result<QJsonObject, HubError> r) {
        if (!self || !self->m_pairing)
            return;
        if (!r)
            qCInfo(lcCore) << "the hub was not told about the unpairing:" << r.error().message;
        self->m_pairing->forget(reason);
    });
}

QJsonObject Engine::pairingStatus() const
{
    QJsonObject o {{QStringLiteral("paired"), m_pairing && m_pairing->identity()}};
    if (!m_pairing)
        return o;
    if (const PairingFlow *flow = m_pairing->flow()) {
        const PairingCode code = flow->code();
        o.insert(QStringLiteral("state"), pairingStateName(flow->state()));
        if (flow->state() == PairingState::WaitingForApproval) {
            o.insert(QStringLiteral("userCode"), code.userCode);
            o.insert(QStringLiteral("verificationUri"), code.verificationUri.toString());
            o.insert(QStringLiteral("verificationUriComplete"), code.verificationUriComplete.toString());
            o.insert(QStringLiteral("expiresAt"), code.expiresAt.toString(Qt::ISODate));
            o.insert(QStringLiteral("interval"), flow->intervalSeconds());
        }
        if (!flow->reason().isEmpty())
            o.insert(QStringLiteral("reason"), flow->reason());
    } else {
        o.insert(QStringLiteral("state"), pairingStateName(PairingState::Idle));
    }
    if (const ServerIdentity *id = m_pairing->identity())
        o.insert(QStringLiteral("serverId"), id->serverId);
    return o;
}

QJsonObject Engine::heartbeatReport() const
{
    return QJsonObject {
        {QStringLiteral("version"), QStringLiteral(ISOLATION_VERSION)},
        {QStringLiteral("hostName"), QHostInfo::localHostName()},
        {QStringLiteral("capacity"), QJsonObject {{QStringLiteral("cpus"), QThread::idealThreadCount()}}},
        {QStringLiteral("sessions"), QJsonObject {{QStringLiteral("running"), 0}, {QStringLiteral("suspended"), 0}}},
        {QStringLiteral("runtime"),
            QJsonObject {{QStringLiteral("state"), runtimeStatus().value(QStringLiteral("state"))}}},
        {QStringLiteral("cache"),
            QJsonObject {{QStringLiteral("workspaces"), m_sessions ? int(m_sessions->cache().list().size()) : 0},
                {QStringLiteral("bytes"), m_sessions ? m_sessions->cache().totalBytes() : 0}}},
    };
}

QJsonObject Engine::status() const
{
    QJsonObject o {
        {QStringLiteral("version"), QStringLiteral(ISOLATION_VERSION)},
        {QStringLiteral("state"), engineStateName(m_state)},
        {QStringLiteral("reason"), m_reason},
        {QStringLiteral("paired"), m_pairing && m_pairing->identity()},
        {QStringLiteral("hub"), m_settings.hubUrl().toString()},
        {QStringLiteral("pid"), QCoreApplication::applicationPid()},
        {QStringLiteral("hostName"), QHostInfo::localHostName()},
        {QStringLiteral("home"), m_paths.overridden() ? m_paths.home() : m_paths.dataDir()},
        {QStringLiteral("socket"), m_paths.socketPath()},
        {QStringLiteral("startedAt"), m_startedAt.toString(Qt::ISODate)},
        {QStringLiteral("credentialStore"), m_pairing ? m_pairing->store()->describe() : QString()},
        {QStringLiteral("credentialStoreKind"),
            credentialStoreKindName(m_pairing ? m_pairing->store()->kind() : m_storeChoice)},
        {QStringLiteral("connected"), connected()},
        {QStringLiteral("warnings"), m_health.toJson()},
    };
    if (!m_storeError.isEmpty()) {
        o.insert(QStringLiteral("credentialStoreError"), m_storeError);
        o.insert(QStringLiteral("credentialStoreProblem"), m_storeProblem);
    }
    if (const ServerIdentity *id = m_pairing ? m_pairing->identity() : nullptr) {
        o.insert(QStringLiteral("hub"), id->hubUrl.toString());
        o.insert(QStringLiteral("serverId"), id->serverId);
        o.insert(QStringLiteral("serverName"), id->name);
    }
    if (m_tunnel) {
        o.insert(QStringLiteral("tunnel"),
            QJsonObject {{QStringLiteral("state"), tunnelStateName(m_tunnel->state())},
                {QStringLiteral("reason"), m_tunnel->reason()},
                {QStringLiteral("connections"), m_tunnel->connectionCount()}});
    }
    o.insert(QStringLiteral("runtime"), runtimeStatus());
    if (m_heartbeat) {
        o.insert(QStringLiteral("heartbeat"),
            QJsonObject {{QStringLiteral("intervalSeconds"), m_heartbeat->intervalSeconds()},
                {QStringLiteral("last"), m_heartbeat->lastSuccess().toString(Qt::ISODate)},
                {QStringLiteral("reachable"), m_heartbeat->reachable()},
                {QStringLiteral("error"), m_heartbeat->lastError()}});
    }
    return o;
}

void Engine::setState(EngineState state, const QString &reason)
{
    if (state == m_state && reason == m_reason)
        return;
    // The activity view gets transitions, and new reasons only where they tell something new
    // (why not paired, what failed) -- not the ticking ones (a countdown, a reconnect delay).
    if (state != m_state || state == EngineState::NotPaired || state == EngineState::Error)
        m_activity.record(
            state == EngineState::Pairing || (m_state == EngineState::Pairing && state != EngineState::Stopped)
                ? QStringLiteral("pairing")
                : QStringLiteral("connection"),
            reason);
    m_state = state;
    m_reason = reason;
    qCInfo(lcCore) << "state:" << engineStateName(state) << "-" << reason;
    Q_EMIT stateChanged();
}

} // namespace isolation
