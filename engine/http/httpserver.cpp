#include "httpserver.h"

#include "httpconnection.h"
#include "net/tcpstream.h"

#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QTcpServer>
#include <QTcpSocket>

#include <sys/resource.h>

Q_DECLARE_LOGGING_CATEGORY(lcHttp)

namespace isolation {

namespace {

constexpr int kSweepMs = 1000;
// Connections the kernel completes before we accept them (Qt's default is 50). Beyond it a new
// client's SYN is dropped and it tries again a second later: under a flood of connections a
// normal client would wait that second before the server even sees it.
constexpr int kListenBacklog = 1024;

// The connection caps (HttpLimits) assume descriptors to hold them: a process at its soft limit
// fails accept() with EMFILE, and QTcpServer stops listening for good. The soft limit goes up to
// the hard one (Debian's default soft limit is 1024), once per process.
void raiseDescriptorLimit()
{
    static const bool once = [] {
        rlimit l {};
        if (::getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur < l.rlim_max) {
            const rlim_t before = l.rlim_cur;
            l.rlim_cur = l.rlim_max == RLIM_INFINITY ? std::max<rlim_t>(before, 65536) : l.rlim_max;
            if (::setrlimit(RLIMIT_NOFILE, &l) != 0)
                qCWarning(lcHttp) << "cannot raise the descriptor limit from" << before;
        }
        return true;
    }();
    Q_UNUSED(once);
}

} // namespace

HttpReply::HttpReply(HttpConnection *connection, quint64 sequence)
    : m_connection(connection)
    , m_sequence(sequence)
{ }

void HttpReply::send(HttpResponse response) const
{
    if (m_connection)
        m_connection->sendResponse(m_sequence, std::move(response));
}

void HttpReply::sendHead(int status, HttpHeaders headers) const
{
    if (m_connection)
        m_connection->sendHead(m_sequence, status, std::move(headers));
}

void HttpReply::sendHead(int status, HttpHeaders headers, qint64 contentLength) const
{
    if (m_connection)
        m_connection->sendHead(m_sequence, status, std::move(headers), std::max<qint64>(contentLength, 0));
}

void HttpReply::sendHead(int status, const HeaderFields &headers, qint64 contentLength) const
{
    if (m_connection)
        m_connection->sendHead(m_sequence, status, headers,
            contentLength < 0 ? std::nullopt : std::optional<qint64>(contentLength));
}

qint64 HttpReply::bytesToWrite() const
{
    return m_connection && m_connection->isCurrent(m_sequence) ? m_connection->bytesToWrite() : 0;
}

void HttpReply::setDrainHandler(std::function<void()> handler, qint64 lowWater) const
{
    if (m_connection)
        m_connection->setDrainHandler(m_sequence, std::move(handler), lowWater);
}

void HttpReply::write(const QByteArray &chunk) const
{
    if (m_connection)
        m_connection->writeChunk(m_sequence, chunk);
}

void HttpReply::finish() const
{
    if (m_connection)
        m_connection->finishChunks(m_sequence);
}

void HttpReply::sendDevice(int status, HttpHeaders headers, std::unique_ptr<QIODevice> body, qint64 size) const
{
    if (m_connection)
        m_connection->sendDevice(m_sequence, status, std::move(headers), std::move(body), size);
}

bool HttpReply::connected() const
{
    return m_connection && m_connection->isCurrent(m_sequence);
}

void HttpReply::close() const
{
    if (m_connection && m_connection->isCurrent(m_sequence))
        m_connection->evict(); // uncounted now, gone on the next turn of the event loop
}

HttpServer::HttpServer(QObject *parent)
    : QObject(parent)
{
    m_clock.start();
    m_sweep.setInterval(kSweepMs);
    connect(&m_sweep, &QTimer::timeout, this, &HttpServer::sweep);
}

HttpServer::~HttpServer()
{
    // Connections are children; make sure they no longer call back into a half-destroyed server.
    for (HttpConnection *c : std::as_const(m_connections))
        c->disconnect();
    const auto connections = std::exchange(m_connections, {});
    qDeleteAll(connections);
}

void HttpServer::route(const QByteArray &method, const QString &pattern, Handler handler)
{
    m_routes.append({method, pattern.split(QLatin1Char('/'), Qt::SkipEmptyParts), std::move(handler), {}});
}

void HttpServer::streamRoute(const QByteArray &method, const QString &pattern, StreamHandler handler)
{
    m_routes.append({method, pattern.split(QLatin1Char('/'), Qt::SkipEmptyParts), {}, std::move(handler)});
}

namespace {

// Hands accepted descriptors to HttpServer as they come, to become TcpStreams or QTcpSockets.
class TcpListener final : public QTcpServer
{
public:
    TcpListener(std::function<void(qintptr)> accepted, QObject *parent)
        : QTcpServer(parent)
        , m_accepted(std::move(accepted))
    { }

protected:
    void incomingConnection(qintptr fd) override { m_accepted(fd); }

private:
    std::function<void(qintptr)> m_accepted;
};

} // namespace

Result<quint16> HttpServer::listenTcp(const QHostAddress &address, quint16 port)
{
    raiseDescriptorLimit();
    auto *server = new TcpListener(
        [this](qintptr fd) {
            if (m_streamSockets) {
                auto *stream = new TcpStream(int(fd), this);
                serve(stream, stream->peerAddress());
                return;
            }
            auto *socket = new QTcpSocket(this);
            if (!socket->setSocketDescriptor(fd)) {
                delete socket;
                return;
            }
            // Answers go out as they are written: with Nagle's algorithm a body written after its
            // head waits for the peer's delayed ACK (up to 40 ms on Linux) on a keep-alive connection.
            socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            serve(socket, socket->peerAddress());
        },
        this);
    server->setListenBacklogSize(kListenBacklog);
    if (!server->listen(address, port)) {
        const QString why = server->errorString();
        delete server;
        return Error::unavailable(
            QStringLiteral("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(why));
    }
    m_tcp.append(server);
    return server->serverPort();
}

Status HttpServer::listenLocal(const QString &path)
{
    raiseDescriptorLimit();
    auto *server = new QLocalServer(this);
    server->setSocketOptions(QLocalServer::UserAccessOption);
    server->setListenBacklogSize(kListenBacklog);
    if (!server->listen(path)) {
        const QString why = server->errorString();
        delete server;
        return Error::unavailable(QStringLiteral("cannot listen on %1: %2").arg(path, why));
    }
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    connect(server, &QLocalServer::newConnection, this, [this, server] {
        while (QLocalSocket *socket = server->nextPendingConnection()) {
            socket->setParent(this);
            serve(socket);
        }
    });
    m_local.append(server);
    return {};
}

void HttpServer::serve(QIODevice *device, const QHostAddress &peer)
{
    m_now = m_clock.elapsed();
    if (!makeRoom(peer)) {
        refuse(device);
        return;
    }
    auto *connection = new HttpConnection(device, peer, this);
    m_connections.append(connection);
    ++m_perPeer[peer];
    ++m_counted;
    if (!m_sweep.isActive())
        m_sweep.start();
}

bool HttpServer::makeRoom(const QHostAddress &peer)
{
    const bool peerFull = m_limits.maxConnectionsPerPeer > 0 && m_perPeer.value(peer) >= m_limits.maxConnectionsPerPeer;
    const bool allFull = m_limits.maxConnections > 0 && m_counted >= m_limits.maxConnections;
    if (!peerFull && !allFull)
        return true;
    // The oldest connection that waits for a request goes: a slow head (slowloris) or an idle
    // keep-alive (a browser opens a new one when it needs it). Those inside a request stay.
    for (HttpConnection *c : std::as_const(m_connections)) {
        if (c->waitingForRequest() && (!peerFull || c->peer() == peer)) {
            ++m_counters.evicted;
            c->evict();
            return true;
        }
    }
    ++m_counters.refused;
    return false;
}

void HttpServer::refuse(QIODevice *device)
{
    // Before any request: the peer reads this answer to the one it is about to send.
    static const QByteArray body = R"({"error":"unavailable","message":"too many connections"})";
    device->setParent(this);
    device->write("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n" + body);
    onDeviceDisconnected(device, device, [device] { device->deleteLater(); });
    disconnectDevice(device);
    if (!device->isOpen())
        device->deleteLater();
}

void HttpServer::uncount(HttpConnection *connection)
{
    if (!connection->m_counted)
        return;
    connection->m_counted = false;
    --m_counted;
    auto it = m_perPeer.find(connection->peer());
    if (it != m_perPeer.end() && --it.value() <= 0)
        m_perPeer.erase(it);
}

void HttpServer::sweep()
{
    m_now = m_clock.elapsed();
    const auto connections = m_connections; // a check may close one (deleteLater: still there)
    for (HttpConnection *c : connections)
        c->checkDeadline(m_now);
    // One line a second at most, however many clients misbehave.
    if (m_counters.refused != m_logged.refused || m_counters.evicted != m_logged.evicted
        || m_counters.timedOut != m_logged.timedOut) {
        qCInfo(lcHttp).nospace() << "connection limits: " << m_counters.refused - m_logged.refused << " refused, "
                                 << m_counters.evicted - m_logged.evicted << " closed to make room, "
                                 << m_counters.timedOut - m_logged.timedOut << " timed out in the last second(s); "
                                 << m_connections.size() << " open";
        m_logged = m_counters;
    }
    if (m_connections.isEmpty())
        m_sweep.stop();
}

void HttpServer::close()
{
    for (QTcpServer *s : std::as_const(m_tcp)) {
        s->close();
        s->deleteLater();
    }
    m_tcp.clear();
    for (QLocalServer *s : std::as_const(m_local)) {
        s->close();
        s->deleteLater();
    }
    m_local.clear();
    const auto connections = m_connections;
    for (HttpConnection *c : connections)
        c->closeNow();
}

void HttpServer::forget(HttpConnection *connection)
{
    uncount(connection);
    m_connections.removeOne(connection);
}

bool HttpServer::upgrade(const HttpRequest &request, QIODevice *device, const QByteArray &head, const QByteArray &rest)
{
    return m_upgrade && m_upgrade(request, device, head, rest);
}

bool HttpServer::matches(const Route &route, const QStringList &parts, QHash<QString, QString> *params)
{
    qsizetype i = 0;
    for (; i < route.segments.size(); ++i) {
        const QString &seg = route.segments.at(i);
        if (seg.startsWith(QLatin1String("{*")) && seg.endsWith(QLatin1Char('}'))) {
            params->insert(seg.mid(2, seg.size() - 3), parts.mid(i).join(QLatin1Char('/')));
            return true;
        }
        if (i >= parts.size())
            return false;
        if (seg.startsWith(QLatin1Char('{')) && seg.endsWith(QLatin1Char('}')))
            params->insert(seg.mid(1, seg.size() - 2), parts.at(i));
        else if (seg != parts.at(i))
            return false;
    }
    return i == parts.size();
}

std::optional<Result<std::unique_ptr<HttpBodySink>, HttpResponse>> HttpServer::openStream(HttpRequest &head)
{
    if (m_gate) {
        if (std::optional<HttpResponse> refusal = m_gate(head))
            return Result<std::unique_ptr<HttpBodySink>, HttpResponse>(std::move(*refusal));
    }
    if (m_streamAll)
        return m_streamAll(head);
    const QStringList parts = head.path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (const Route &route : std::as_const(m_routes)) {
        QHash<QString, QString> params;
        if (!route.stream || route.method != head.method || !matches(route, parts, &params))
            continue;
        head.params = std::move(params);
        return route.stream(head);
    }
    return std::nullopt;
}

void HttpServer::dispatch(HttpRequest &request, HttpReply reply)
{
    const QStringList parts = request.path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    bool pathMatched = false;
    for (const Route &route : std::as_const(m_routes)) {
        QHash<QString, QString> params;
        if (!matches(route, parts, &params))
            continue;
        pathMatched = true;
        // Stream routes were taken when the head came in; one seen here has another method.
        if (!route.handler || (route.method != request.method && route.method != "*"))
            continue;
        request.params = std::move(params);
        route.handler(request, reply);
        return;
    }
    if (pathMatched) {
        reply.send(HttpResponse::error(405, QStringLiteral("method_not_allowed"),
            QStringLiteral("%1 is not allowed here").arg(QString::fromLatin1(request.method))));
        return;
    }
    if (m_fallback) {
        m_fallback(request, reply);
        return;
    }
    reply.send(HttpResponse::error(
        404, QStringLiteral("not_found"), QStringLiteral("no such resource: %1").arg(request.path)));
}

} // namespace isolation
