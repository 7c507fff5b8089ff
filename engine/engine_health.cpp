// Whether the engine can take work (GET /ready) and what it has done (GET /metrics), on the
// LocalAPI and, with `up --metrics-listen ADDRESS:PORT`, over TCP for a Prometheus scraper
// (docs/operations.md).
#include "engine.h"

#include "core/logging.h"
#include "doorman/doorman.h"
#include "engineevents.h"
#include "http/httpserver.h"
#include "localapi/enginemetrics.h"
#include "pairing/pairingcontroller.h"
#include "runtime/runtimemanager.h"
#include "sessions/session.h"
#include "sessions/sessionmanager.h"

#include <QJsonArray>
#include <QUrl>

namespace isolation {

namespace {

using namespace std::chrono_literals;
// How long a cause holds before its warning is shown (docs/architecture.md, "Health warnings").
constexpr std::chrono::milliseconds kTunnelDownDelay = 30s; // a reconnect after a blip takes less
constexpr std::chrono::milliseconds kRuntimeBrokenDelay = 5s; // Docker missing or the runtime failed
constexpr std::chrono::milliseconds kRuntimeUnhealthyDelay = 90s; // starting, restarting, upgrading

} // namespace

void Engine::updateHealth()
{
    using namespace std::chrono_literals;
    if (m_state == EngineState::Stopped) {
        m_health.clearAll();
        return;
    }
    // The tunnel: the cloud reaches this computer through it alone. Not while the member
    // disconnected it, and not for the moment a reconnect takes.
    const bool paired = m_pairing && m_pairing->identity();
    if (paired && connected() && !(m_tunnel && m_tunnel->state() == TunnelState::Connected)) {
        const bool hopeless = m_state == EngineState::Error;
        m_health.raise(QStringLiteral("tunnel_down"), hopeless ? HealthSeverity::Error : HealthSeverity::Warning,
            hopeless ? tr("The cloud cannot reach this computer: %1").arg(m_reason)
                     : tr("The cloud cannot reach this computer: the tunnel to the hub is down. Check the network "
                          "connection; the engine keeps trying."),
            hopeless ? 0ms : kTunnelDownDelay);
    } else {
        m_health.clear(QStringLiteral("tunnel_down"));
    }
    // The credential store: without it the engine cannot even tell whether it is paired.
    if (!m_storeError.isEmpty())
        m_health.raise(QStringLiteral("credential_store"), HealthSeverity::Error, m_storeError, 0ms);
    else
        m_health.clear(QStringLiteral("credential_store"));
    // The runtime: without it no session can launch. Starting takes a while (images, first boot).
    const QJsonObject runtime = runtimeStatus();
    const QString state = runtime.value(QStringLiteral("state")).toString();
    const QString reason = runtime.value(QStringLiteral("reason")).toString();
    if (!m_runtime || state == runtimeStateName(RuntimeState::Healthy)) {
        m_health.clear(QStringLiteral("runtime_unhealthy"));
    } else if (state == runtimeStateName(RuntimeState::DockerMissing) || state == runtimeStateName(RuntimeState::Failed)) {
        m_health.raise(QStringLiteral("runtime_unhealthy"), HealthSeverity::Error,
            tr("Sessions cannot launch here: %1").arg(reason), kRuntimeBrokenDelay);
    } else {
        m_health.raise(QStringLiteral("runtime_unhealthy"), HealthSeverity::Warning,
            tr("The sandbox runtime is not healthy yet; sessions cannot launch until it is (isolation-server "
               "runtime status says more)"),
            kRuntimeUnhealthyDelay);
    }
}

QJsonObject Engine::readiness() const
{
    QJsonArray reasons;
    if (m_state == EngineState::Stopped)
        reasons.append(tr("The engine is not running"));
    if (!m_pairing || !m_pairing->identity())
        reasons.append(tr("This computer is not paired"));
    else if (!connected())
        reasons.append(tr("Disconnected: the tunnel is closed until you connect again"));
    else if (!m_tunnel || m_tunnel->state() != TunnelState::Connected)
        reasons.append(tr("The tunnel to the hub is not up: %1").arg(m_tunnel ? m_tunnel->reason() : m_reason));
    const QJsonObject runtime = runtimeStatus();
    if (runtime.value(QStringLiteral("state")).toString() != runtimeStateName(RuntimeState::Healthy))
        reasons.append(tr("The sandbox runtime is not healthy: %1").arg(runtime.value(QStringLiteral("reason")).toString()));
    return QJsonObject {{QStringLiteral("ready"), reasons.isEmpty()}, {QStringLiteral("reasons"), reasons}};
}

QByteArray Engine::metricsText() const
{
    if (!m_metrics)
        return {};
    EngineMetrics::Now now;
    now.paired = m_pairing && m_pairing->identity();
    for (EngineState s : {EngineState::Stopped, EngineState::NotPaired, EngineState::Pairing, EngineState::Online,
             EngineState::Reconnecting, EngineState::Error, EngineState::Disconnected})
        now.engineStates << engineStateName(s);
    now.engineState = engineStateName(m_state);
    for (TunnelState s : {TunnelState::Disconnected, TunnelState::Connecting, TunnelState::Connected,
             TunnelState::Draining, TunnelState::Backoff})
        now.tunnelStates << tunnelStateName(s);
    if (m_tunnel)
        now.tunnelState = tunnelStateName(m_tunnel->state());
    for (RuntimeState s : {RuntimeState::Absent, RuntimeState::DockerMissing, RuntimeState::Starting,
             RuntimeState::Healthy, RuntimeState::Unhealthy, RuntimeState::Restarting, RuntimeState::Upgrading,
             RuntimeState::Failed})
        now.runtimeStates << runtimeStateName(s);
    now.runtimeState = runtimeStatus().value(QStringLiteral("state")).toString();
    for (SessionState s :
        {SessionState::Opening, SessionState::Ready, SessionState::Saving, SessionState::Syncing, SessionState::Failed})
        now.sessionStates << sessionStateName(s);
    for (Session *s : m_sessions ? m_sessions->sessions() : QList<Session *>())
        ++now.sessions[sessionStateName(s->state())];
    if (m_doorman) {
        now.viewsForwarded = m_doorman->forwarded();
        now.viewsAnswered = m_doorman->answered();
        now.viewsRefused = m_doorman->refused();
    }
    return m_metrics->render(now);
}

void Engine::addHealthRoutes(HttpServer &http)
{
    http.route("GET", QStringLiteral("/ready"), [this](const HttpRequest &, HttpReply reply) {
        const QJsonObject r = readiness();
        reply.send(HttpResponse::json(r.value(QStringLiteral("ready")).toBool() ? 200 : 503, r));
    });
    http.route("GET", QStringLiteral("/metrics"), [this](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::text(200, metricsText(), MetricsText::ContentType));
    });
}

Status Engine::listenForMetrics()
{
    if (m_options.metricsListen.isEmpty())
        return {};
    // ADDRESS:PORT, read as a URL's authority ("[::1]:9464" works too).
    const QUrl url(QStringLiteral("http://") + m_options.metricsListen);
    const QHostAddress address(url.host());
    if (!url.isValid() || address.isNull() || url.port() <= 0 || !url.path().isEmpty() || !url.userInfo().isEmpty())
        return Error::invalidInput(
            tr("--metrics-listen wants ADDRESS:PORT, e.g. 127.0.0.1:9464, not %1").arg(m_options.metricsListen));
    m_metricsHttp = std::make_unique<HttpServer>();
    addHealthRoutes(*m_metricsHttp);
    auto bound = m_metricsHttp->listenTcp(address, quint16(url.port()));
    if (!bound) {
        m_metricsHttp.reset();
        return Error::unavailable(
            tr("Cannot serve metrics on %1: %2").arg(m_options.metricsListen, bound.error().message));
    }
    qCInfo(lcCore).noquote() << "metrics on http://" + m_options.metricsListen + "/metrics";
    return {};
}

} // namespace isolation
