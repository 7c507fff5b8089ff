#include "tunnelclient.h"

#include "core/huburl.h"
#include "core/logging.h"
#include "core/version.h"
#include "net/tcpstream.h"
#include "tunnelauth.h"
#include "websocket/websocketlink.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcTunnel, "isolation.tunnel")

namespace isolation {

QString tunnelStateName(TunnelState state)
{
    switch (state) {
    case TunnelState::Disconnected:
        return QStringLiteral("disconnected");
    case TunnelState::Connecting:
        return QStringLiteral("connecting");
    case TunnelState::Connected:
        return QStringLiteral("connected");
    case TunnelState::Draining:
        return QStringLiteral("draining");
    case TunnelState::Backoff:
        return QStringLiteral("backoff");
    }
    return QStringLiteral("disconnected");
}

QString tunnelErrorCodeName(TunnelError::Code code)
{
    switch (code) {
    case TunnelError::Code::InvalidConfig:
        return QStringLiteral("invalid_config");
    case TunnelError::Code::Unauthorized:
        return QStringLiteral("unauthorized");
    case TunnelError::Code::Unavailable:
        return QStringLiteral("unavailable");
    case TunnelError::Code::Protocol:
        return QStringLiteral("protocol");
    }
    return QStringLiteral("unavailable");
}

TunnelClient::TunnelClient(Options options, const Clock &clock, std::unique_ptr<Timer> reconnectTimer, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_clock(clock)
    , m_reconnectTimer(reconnectTimer ? std::move(reconnectTimer) : std::make_unique<SystemTimer>())
    , m_backoff(m_options.backoff, clock, m_options.random01)
    , m_reason(tr("Tunnel not started"))
{
    m_keepalive.setInterval(m_options.pingInterval);
    connect(&m_keepalive, &QTimer::timeout, this, &TunnelClient::keepaliveTick);
    m_handshakeTimer.setSingleShot(true);
    connect(&m_handshakeTimer, &QTimer::timeout, this, [this] {
        onSocketGone(TunnelError::unavailable(tr("the hub did not complete the tunnel handshake in time")));
    });
    m_drainTimer.setSingleShot(true);
    connect(&m_drainTimer, &QTimer::timeout, this, [this] {
        if (m_drainClosing) // the hub never answered the close: cut it
            onSocketGone(TunnelError::unavailable(tr("tunnel drained")));
        else
            finishDrain(); // the bound for open streams is up
    });
    setStreamHandler(RpcDispatcher::PathPrefix, [this](TunnelStream *stream) { m_rpc.serve(stream); });
}

TunnelClient::~TunnelClient()
{
    m_running = false;
    m_reconnectTimer->stop();
    teardown(); // the session and socket are children: they go with the client
}

Result<QUrl, TunnelError> TunnelClient::tunnelUrl(const QUrl &hub)
{
    // The one rule for hub URLs (core/huburl.h): TLS, or plain only to this computer.
    auto checked = HubUrl::check(hub);
    if (!checked)
        return TunnelError::invalidConfig(checked.error().message);
    QUrl url = checked.value();
    const QString scheme = url.scheme().toLower();
    url.setScheme(scheme == QLatin1String("https") || scheme == QLatin1String("wss") ? QStringLiteral("wss")
                                                                                       : QStringLiteral("ws"));
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    url.setPath(path + QStringLiteral("/v1/tunnel"));
    url.setQuery(QString());
    url.setFragment(QString());
    return url;
}

Result<void, TunnelError> TunnelClient::start()
{
    if (m_running)
        return {};
    auto url = tunnelUrl(m_options.hub);
    std::optional<TunnelError> bad;
    if (!url)
        bad = url.error();
    else if (!TunnelAuth::validServerId(m_options.serverId))
        bad = TunnelError::invalidConfig(tr("the server id is not valid"));
    else if (m_options.credential.isEmpty() || !m_options.sign)
        bad = TunnelError::invalidConfig(tr("the tunnel needs the server credential and key"));
    if (bad) {
        m_lastError = bad;
        qCWarning(lcTunnel) << "tunnel not started:" << bad->message;
        setState(TunnelState::Disconnected, bad->message);
        return *bad;
    }
    m_url = url.value();
    logging::addRedaction(m_options.credential);
    m_running = true;
    m_backoff.reset();
    connectNow();
    return {};
}

void TunnelClient::stop()
{
    m_running = false;
    m_reconnectTimer->stop();
    if (m_session)
        m_session->terminate(TunnelStream::NoError);
    if (m_socket)
        m_socket->close(websocket::CloseGoingAway, QStringLiteral("stopping"));
    teardown();
    setState(TunnelState::Disconnected, tr("Tunnel stopped"));
}

void TunnelClient::drain(std::chrono::milliseconds bound)
{
    if (m_state != TunnelState::Connected || !m_session) {
        if (m_state != TunnelState::Draining) {
            stop();
            Q_EMIT drained();
        }
        return;
    }
    qCInfo(lcTunnel) << "draining the tunnel:" << m_session->streamCount() << "open stream(s)";
    m_running = false;
    m_reconnectTimer->stop();
    setState(TunnelState::Draining, tr("Closing the tunnel: finishing open requests"));
    m_session->shutdown();
    if (m_session && m_session->streamCount() == 0)
        finishDrain();
    else
        m_drainTimer.start(bound);
}

void TunnelClient::setStreamHandler(const QByteArray &pathPrefix, StreamHandler handler)
{
    for (auto &h : m_handlers) {
        if (h.first == pathPrefix) {
            h.second = std::move(handler);
            return;
        }
    }
    m_handlers.append({pathPrefix, std::move(handler)});
    std::sort(m_handlers.begin(), m_handlers.end(),
        [](const auto &a, const auto &b) { return a.first.size() > b.first.size(); });
}

void TunnelClient::connectNow()
{
    if (!m_running)
        return;
    teardown();
    setState(TunnelState::Connecting, tr("Connecting to %1").arg(m_url.host()));

    m_connector = new WebSocketConnector(this);
    WebSocketConnector *connector = m_connector;
    connect(connector, &WebSocketConnector::opened, this, [this, connector](WebSocketLink *link) {
        if (connector != m_connector)
            return;
        onConnected(link);
    });
    connect(connector, &WebSocketConnector::failed, this, [this, connector](int status, const QString &text) {
        if (connector != m_connector)
            return;
        if (status == 401 || status == 403)
            onSocketGone(
                TunnelError::unauthorized(tr("the hub refused this server's credential (HTTP %1)").arg(status)));
        else if (status != 0)
            onSocketGone(TunnelError::protocol(tr("the hub refused the tunnel (HTTP %1)").arg(status)));
        else
            onSocketGone(TunnelError::unavailable(tr("cannot reach the hub: %1").arg(text)));
    });

    const qint64 timestamp = m_clock.unixSeconds();
    const QByteArray nonce = TunnelAuth::newNonce();
    const QByteArray signature = m_options.sign(TunnelAuth::signedMessage(m_options.serverId, timestamp, nonce));
    HttpHeaders headers = TunnelAuth::headers(m_options.serverId, m_options.credential, timestamp, nonce, signature);
    headers.append({"User-Agent",
        m_options.userAgent.isEmpty() ? QByteArray("isolation-engine/" ISOLATION_VERSION) : m_options.userAgent});
    qCDebug(lcTunnel) << "connecting to" << m_url.toString() << "as" << m_options.serverId;
    m_handshakeTimer.start(m_options.handshakeTimeout);
    connector->open(m_url, headers, MaxMessageSize, m_options.proxy.proxyFor(m_url));
}

void TunnelClient::onConnected(WebSocketLink *link)
{
    m_handshakeTimer.stop();
    m_connector->deleteLater();
    m_connector = nullptr;
    link->setParent(this);
    m_socket = link;
    link->setMessageHandler([this](QByteArrayView bytes) { onMessage(bytes); });
    connect(link, &WebSocketLink::disconnected, this, [this, link](const QString &why) {
        if (link != m_socket)
            return;
        if (m_drainClosing)
            onSocketGone(TunnelError::unavailable(tr("tunnel drained")));
        else if (link->peerBrokeProtocol())
            onSocketGone(TunnelError::protocol(tr("the hub broke the WebSocket protocol: %1").arg(why)));
        else
            onSocketGone(TunnelError::unavailable(
                why.isEmpty() ? tr("the hub closed the tunnel") : tr("the hub closed the tunnel: %1").arg(why)));
    });

    m_session = new Http2Session(Http2Session::Role::Server, m_options.http2, this);
    QPointer<WebSocketLink> socket = m_socket;
    connect(m_session, &Http2Session::output, this, [socket](const QByteArray &bytes) {
        if (socket)
            socket->sendBinary(bytes); // out now: the peer starts on it while the rest of this turn runs
    });
    connect(m_session, &Http2Session::incomingStream, this, &TunnelClient::onStream);
    // Queued: a stream closes while nghttp2 is still producing its last frames, which must
    // reach the WebSocket before the close does.
    connect(
        m_session, &Http2Session::streamClosed, this,
        [this] {
            if (m_state == TunnelState::Draining && m_session && m_session->streamCount() == 0)
                finishDrain();
        },
        Qt::QueuedConnection);
    connect(m_session, &Http2Session::goAway, this,
        [](quint32 code) { qCInfo(lcTunnel) << "the hub is closing the tunnel (GOAWAY, code" << code << ")"; });
    if (auto s = m_session->start(); !s) {
        onSocketGone(TunnelError::protocol(s.error().message));
        return;
    }
    ++m_connections;
    m_backoff.connected();
    m_lastHeard = m_clock.monotonicMs();
    m_keepalive.start();
    m_lastError.reset();
    qCInfo(lcTunnel) << "tunnel up to" << m_url.host() << "(connection" << m_connections << ")";
    setState(TunnelState::Connected, tr("Connected to %1").arg(m_url.host()));
    Q_EMIT connected();
    // What the hub sent right after its answer (its HTTP/2 preface), then the rest as it comes.
    if (m_socket == link)
        link->start();
}

void TunnelClient::onMessage(QByteArrayView bytes)
{
    m_lastHeard = m_clock.monotonicMs();
    if (!m_session)
        return;
    Status received;
    {
        // What the streams of this message write (the doorman's requests to the sandboxes, the
        // HTTP/2 frames back) leaves once per socket when the message is taken in.
        const TcpStream::WriteBatch batch;
        received = m_session->receive(bytes);
    }
    if (!m_session)
        return; // the socket failed while the answers were flushed to it: the tunnel is down
    if (!received) {
        onSocketGone(TunnelError::protocol(received.error().message));
        return;
    }
    m_session->whenOutputSent([this] { checkSessionEnded(); });
}

void TunnelClient::checkSessionEnded()
{
    if (!m_session || m_session->isAlive())
        return;
    // nghttp2 is done with the connection: both sides said GOAWAY and no stream is left, or it
    // found the hub breaking HTTP/2 and queued a GOAWAY of its own.
    if (m_state == TunnelState::Draining)
        QMetaObject::invokeMethod(this, &TunnelClient::finishDrain, Qt::QueuedConnection);
    else if (m_session->goAwayReceived())
        onSocketGone(TunnelError::unavailable(tr("the hub closed the tunnel (GOAWAY)")));
    else
        onSocketGone(TunnelError::protocol(tr("the hub broke the HTTP/2 protocol")));
}

void TunnelClient::onSocketGone(const TunnelError &why)
{
    if (!m_socket && !m_connector)
        return;
    const bool wasUp = m_state == TunnelState::Connected || m_state == TunnelState::Draining;
    const bool draining = m_state == TunnelState::Draining;
    if (wasUp)
        m_backoff.disconnected();
    teardown();
    m_lastError = why;
    if (wasUp) {
        qCInfo(lcTunnel) << "tunnel down:" << why.message;
        Q_EMIT disconnected(why.message);
    } else {
        qCInfo(lcTunnel) << "tunnel attempt failed:" << why.message;
    }
    if (draining) {
        setState(TunnelState::Disconnected, tr("Tunnel closed"));
        Q_EMIT drained();
        return;
    }
    if (!m_running || !why.retryable()) {
        m_running = false;
        setState(TunnelState::Disconnected, why.message);
        return;
    }
    const auto delay = m_backoff.nextDelay();
    setState(TunnelState::Backoff,
        tr("Reconnecting in %1 s: %2").arg(QString::number(double(delay.count()) / 1000.0, 'f', 1), why.message));
    Q_EMIT reconnectScheduled(delay);
    m_reconnectTimer->start(delay, [this] { connectNow(); });
}

void TunnelClient::onStream(TunnelStream *stream)
{
    const QByteArray &path = stream->requestHead().path;
    for (const auto &h : std::as_const(m_handlers)) {
        if (path.startsWith(h.first)) {
            h.second(stream);
            return;
        }
    }
    stream->respondWith(404, {{"content-type", "application/json"}},
        R"({"error":{"code":"not_found","message":"no such tunnel resource"}})");
}

void TunnelClient::keepaliveTick()
{
    if (!m_session)
        return;
    const qint64 silent = m_clock.monotonicMs() - m_lastHeard;
    if (silent >= m_options.deadAfter.count()) {
        onSocketGone(TunnelError::unavailable(tr("the hub stopped answering (silent for %1 s)").arg(silent / 1000)));
        return;
    }
    m_lastPing = m_clock.monotonicMs();
    m_session->ping();
}

void TunnelClient::keepaliveSoon()
{
    if (!m_session || m_clock.monotonicMs() - m_lastPing < m_options.pingInterval.count() / 2)
        return;
    m_keepalive.start(); // restarts: the next ping of its own is a whole interval away
    keepaliveTick();
}

void TunnelClient::finishDrain()
{
    if (m_state != TunnelState::Draining || !m_socket)
        return;
    if (m_drainClosing)
        return; // the close is under way; the link reports its end (or the timer cuts it)
    if (m_socket->isOpen()) {
        // Close politely; the link waits a moment for the hub's answer to the close, then cuts
        // it (disconnected() either way). The timer is for a hub that never lets go.
        m_drainClosing = true;
        m_socket->close(websocket::CloseNormal, QStringLiteral("draining"));
        m_drainTimer.start(WebSocketLink::CloseTimeoutMs + 500);
        return;
    }
    onSocketGone(TunnelError::unavailable(tr("tunnel drained")));
}

void TunnelClient::teardown()
{
    m_keepalive.stop();
    m_handshakeTimer.stop();
    m_drainTimer.stop();
    m_drainClosing = false;
    if (m_session) {
        disconnect(m_session, nullptr, this, nullptr);
        // Later: this may run inside the session's own signal.
        m_session->deleteLater();
        m_session = nullptr;
    }
    if (m_connector) {
        disconnect(m_connector, nullptr, this, nullptr);
        m_connector->abort();
        m_connector->deleteLater();
        m_connector = nullptr;
    }
    if (m_socket) {
        disconnect(m_socket, nullptr, this, nullptr);
        m_socket->abort(); // a last GOAWAY, if any, was written already
        m_socket->deleteLater();
        m_socket = nullptr;
    }
}

void TunnelClient::setState(TunnelState state, const QString &reason)
{
    if (state == m_state && reason == m_reason)
        return;
    const bool changed = state != m_state;
    m_state = state;
    m_reason = reason;
    if (changed)
        qCDebug(lcTunnel) << "tunnel state" << tunnelStateName(state);
    Q_EMIT stateChanged(state);
}

} // namespace isolation
