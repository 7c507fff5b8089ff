#include "hubtunnel.h"

#include "net/tcpstream.h"
#include "tunnel/tunnelclient.h"
#include "websocket/websocketlink.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QTimer>
#include <QUrl>

Q_LOGGING_CATEGORY(lcHubTunnel, "isolation.hub.tunnel")

namespace isolation::hub {

HubTunnel::HubTunnel(QString serverId, WebSocketLink *socket, Http2Session::Settings settings, QObject *parent)
    : QObject(parent)
    , m_serverId(std::move(serverId))
    , m_socket(socket)
{
    socket->setParent(this);
    m_session = new Http2Session(Http2Session::Role::Client, settings, this);
    connect(m_session, &Http2Session::output, this, [this](const QByteArray &bytes) {
        if (m_socket)
            m_socket->sendBinary(bytes); // out now: the peer starts on it while the rest of this turn runs
    });
    socket->setMessageHandler([this](QByteArrayView bytes) {
        if (!m_session)
            return;
        Status received;
        {
            // The answers this message carries leave for the browsers once per connection, whole,
            // and the frames back go before isAlive() below looks at what is left to send.
            const TcpStream::WriteBatch batch;
            received = m_session->receive(bytes);
        }
        if (!m_session)
            return; // the socket failed while the requests were flushed to it: closed already
        if (const Status &s = received; !s)
            close(QStringLiteral("HTTP/2 error from the server: %1").arg(s.error().message));
        else
            m_session->whenOutputSent([this] { checkEnded(); });
    });
    connect(socket, &WebSocketLink::disconnected, this, [this, socket](const QString &why) {
        close(socket->peerBrokeProtocol() ? QStringLiteral("the server broke the WebSocket protocol: %1").arg(why)
                                          : QStringLiteral("the server closed the tunnel"));
    });
}

void HubTunnel::checkEnded()
{
    if (m_session && !m_session->isAlive()) // GOAWAY both ways and nothing open, or a protocol error
        close(m_session->goAwayReceived() ? QStringLiteral("the server closed the tunnel (GOAWAY)")
                                          : QStringLiteral("the server broke the HTTP/2 protocol"));
}

void HubTunnel::start()
{
    if (!m_session || !m_socket)
        return;
    if (auto s = m_session->start(); !s) {
        close(s.error().message);
        return;
    }
    m_socket->start();
}

HubTunnel::~HubTunnel()
{
    failAll(QStringLiteral("the tunnel to %1 was closed").arg(m_serverId));
}

void HubTunnel::call(
    const QString &method, const QJsonObject &params, std::chrono::milliseconds timeout, CallCallback done)
{
    if (!m_session) {
        done(CallError::notConnected(QStringLiteral("server %1 is not connected").arg(m_serverId)));
        return;
    }
    TunnelHead head;
    head.method = "POST";
    head.scheme = "https";
    head.authority = m_serverId.toUtf8();
    head.path = "/rpc/" + QUrl::toPercentEncoding(method, "._-");
    head.headers = {{"content-type", "application/json"}, {"accept", "application/json"}};
    auto opened = m_session->request(head, false);
    if (!opened) {
        done(CallError::lost(opened.error().message));
        return;
    }
    TunnelStream *stream = opened.value();
    const quint64 id = m_nextCall++;
    PendingCall pending;
    pending.stream = stream;
    pending.done = std::move(done);
    pending.timer = new QTimer(this);
    pending.timer->setSingleShot(true);
    connect(pending.timer, &QTimer::timeout, this, [this, id, method, timeout] {
        auto it = m_calls.find(id);
        if (it == m_calls.end())
            return;
        QPointer<TunnelStream> s = it->stream;
        resolve(id,
            CallError::timeout(
                QStringLiteral("%1 did not answer %2 within %3 ms").arg(m_serverId, method).arg(timeout.count())));
        if (s)
            s->reset(TunnelStream::Cancel);
    });
    pending.timer->start(timeout);
    m_calls.emplace(id, std::move(pending));

    connect(stream, &TunnelStream::readyRead, this, [this, id, stream] {
        auto it = m_calls.find(id);
        if (it == m_calls.end())
            return;
        it->body.append(stream->read());
        if (it->body.size() > MaxResponseBody) {
            resolve(id, CallError::lost(QStringLiteral("the answer is too large")));
            stream->reset(TunnelStream::Cancel);
        }
    });
    connect(stream, &TunnelStream::closed, this, [this, id](quint32 code) { onStreamClosed(id, code); });
    stream->write(QJsonDocument(params).toJson(QJsonDocument::Compact));
    stream->finish();
}

Result<TunnelStream *> HubTunnel::open(const TunnelHead &head, bool endStream)
{
    if (!m_session)
        return Error::unavailable(QStringLiteral("server %1 is not connected").arg(m_serverId));
    return m_session->request(head, endStream);
}

void HubTunnel::onStreamClosed(quint64 id, quint32 errorCode)
{
    auto it = m_calls.find(id);
    if (it == m_calls.end())
        return;
    TunnelStream *stream = it->stream;
    if (stream)
        it->body.append(stream->read());
    if (errorCode != TunnelStream::NoError || !stream || !stream->hasResponseHead()) {
        const QString why = errorCode == TunnelStream::RefusedStream
            ? QStringLiteral("%1 refused the call (shutting down)").arg(m_serverId)
            : QStringLiteral("the call to %1 was cut off (HTTP/2 error %2)").arg(m_serverId).arg(errorCode);
        resolve(id, CallError::lost(why));
        return;
    }
    const int status = stream->responseHead().status;
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(it->body, &pe);
    const QJsonObject object = doc.object();
    if (status >= 200 && status < 300) {
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            resolve(id,
                CallError::remote(QStringLiteral("%1 answered with invalid JSON").arg(m_serverId), status,
                    QStringLiteral("bad_response")));
            return;
        }
        resolve(id, object);
        return;
    }
    const QJsonObject error = object.value(QStringLiteral("error")).toObject();
    QString message = error.value(QStringLiteral("message")).toString();
    if (message.isEmpty())
        message = QStringLiteral("%1 answered HTTP %2").arg(m_serverId).arg(status);
    resolve(id, CallError::remote(message, status, error.value(QStringLiteral("code")).toString(), error));
}

void HubTunnel::resolve(quint64 id, CallResult result)
{
    auto it = m_calls.find(id);
    if (it == m_calls.end())
        return;
    PendingCall pending = std::move(*it);
    m_calls.erase(it);
    if (pending.timer) {
        pending.timer->stop();
        pending.timer->deleteLater();
    }
    if (pending.stream)
        disconnect(pending.stream, nullptr, this, nullptr);
    pending.done(std::move(result));
}

void HubTunnel::failAll(const QString &reason)
{
    const auto ids = m_calls.keys();
    for (quint64 id : ids)
        resolve(id, CallError::lost(reason));
}

void HubTunnel::close(const QString &reason)
{
    if (!m_session)
        return;
    qCInfo(lcHubTunnel) << "tunnel from" << m_serverId << "closed:" << reason;
    Http2Session *session = std::exchange(m_session, nullptr);
    // GOAWAY first, so the engine knows this was on purpose; then nothing more goes out.
    if (m_socket && m_socket->isOpen())
        session->shutdown();
    disconnect(session, nullptr, this, nullptr);
    failAll(reason);
    session->deleteLater();
    if (m_socket) {
        disconnect(m_socket, nullptr, this, nullptr);
        m_socket->close(websocket::CloseGoingAway, reason);
    }
    Q_EMIT closed(reason);
}

} // namespace isolation::hub
