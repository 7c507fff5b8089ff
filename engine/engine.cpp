#include "engine.h"

#include "core/logging.h"
#include "core/version.h"
#include "localapi/localapiserver.h"

#include <QCoreApplication>
#include <QHostInfo>

namespace isolation {

QString engineStateName(EngineState state)
{
    switch (state) {
    case EngineState::Stopped:
        return QStringLiteral("stopped");
    case EngineState::NotPaired:
        return QStringLiteral("not_paired");
    case EngineState::Pairing:
        return QStringLiteral("pairing");
    case EngineState::Online:
        return QStringLiteral("online");
    case EngineState::Reconnecting:
        return QStringLiteral("reconnecting");
    case EngineState::Error:
        return QStringLiteral("error");
    }
    return QStringLiteral("error");
}

Engine::Engine(Paths paths, QObject *parent)
    : QObject(parent)
    , m_paths(std::move(paths))
    , m_settings(m_paths.settingsFile())
    , m_lock(m_paths.lockFile())
    , m_reason(tr("Not running"))
{ }

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
    if (auto s = m_localApi->listen(m_paths.socketPath()); !s) {
        m_localApi.reset();
        m_lock.release();
        return s;
    }
    m_startedAt = QDateTime::currentDateTimeUtc();
    qCInfo(lcCore) << "engine" << ISOLATION_VERSION << "started; state in" << m_paths.dataDir();
    setState(EngineState::NotPaired, tr("Not paired: pair this computer with Isolation to start working"));
    return {};
}

void Engine::stop()
{
    if (m_state == EngineState::Stopped)
        return;
    qCInfo(lcCore) << "engine stopping";
    if (m_tunnel) {
        disconnect(m_tunnel.get(), nullptr, this, nullptr);
        m_tunnel->stop();
        m_tunnel.reset();
    }
    if (m_localApi) {
        m_localApi->close();
        m_localApi.reset();
    }
    m_lock.release();
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
    if (m_tunnel) {
        disconnect(m_tunnel.get(), nullptr, this, nullptr);
        m_tunnel->stop();
    }
    m_tunnel = std::make_unique<TunnelClient>(std::move(options), m_clock);
    RpcDispatcher &rpc = m_tunnel->rpc();
    rpc.add(QStringLiteral("ping"), [](const QJsonObject &params) -> Result<QJsonObject> {
        const QJsonValue echo = params.value(QStringLiteral("echo"));
        return QJsonObject {
            {QStringLiteral("pong"), true}, {QStringLiteral("echo"), echo.isUndefined() ? QJsonValue() : echo}};
    });
    rpc.add(QStringLiteral("server.status"), [this](const QJsonObject &) -> Result<QJsonObject> { return status(); });
    connect(m_tunnel.get(), &TunnelClient::stateChanged, this, &Engine::onTunnelState);
    auto started = m_tunnel->start();
    if (!started) {
        setState(EngineState::Error, started.error().message);
        return started;
    }
    onTunnelState();
    return {};
}

void Engine::onTunnelState()
{
    if (!m_tunnel || m_state == EngineState::Stopped)
        return;
    switch (m_tunnel->state()) {
    case TunnelState::Connected:
        setState(EngineState::Online, tr("Online: %1").arg(m_tunnel->reason()));
        return;
    case TunnelState::Connecting:
    case TunnelState::Backoff:
    case TunnelState::Draining:
        setState(EngineState::Reconnecting, m_tunnel->reason());
        return;
    case TunnelState::Disconnected:
        setState(m_tunnel->lastError() && !m_tunnel->lastError()->retryable() ? EngineState::Error
                                                                              : EngineState::Reconnecting,
            m_tunnel->reason());
        return;
    }
}

QJsonObject Engine::status() const
{
    return QJsonObject {
        {QStringLiteral("version"), QStringLiteral(ISOLATION_VERSION)},
        {QStringLiteral("state"), engineStateName(m_state)},
        {QStringLiteral("reason"), m_reason},
        {QStringLiteral("paired"), m_state == EngineState::Online || m_state == EngineState::Reconnecting},
        {QStringLiteral("hub"), m_settings.hubUrl().toString()},
        {QStringLiteral("pid"), QCoreApplication::applicationPid()},
        {QStringLiteral("hostName"), QHostInfo::localHostName()},
        {QStringLiteral("home"), m_paths.overridden() ? m_paths.home() : m_paths.dataDir()},
        {QStringLiteral("socket"), m_paths.socketPath()},
        {QStringLiteral("startedAt"), m_startedAt.toString(Qt::ISODate)},
    };
}

void Engine::setState(EngineState state, const QString &reason)
{
    if (state == m_state && reason == m_reason)
        return;
    m_state = state;
    m_reason = reason;
    Q_EMIT stateChanged();
}

void Engine::registerRoutes()
{
    HttpServer &http = m_localApi->http();
    http.route("GET", QStringLiteral("/v1/status"),
        [this](const HttpRequest &, HttpReply reply) { reply.send(HttpResponse::json(200, status())); });
}

} // namespace isolation
