#include "cutproxy.h"

#include <QTcpSocket>

namespace isolation::test {

struct CutProxy::Pipe
{
    QTcpSocket *client = nullptr;
    QTcpSocket *server = nullptr;
    QByteArray head; // the head of the request being read
    qint64 bodyLeft = 0; // body bytes of the current request still to forward
    bool cutting = false; // the current request is to be cut
    bool awaitingAnswer = false; // forwarded whole; the server's answer triggers the cut
};

CutProxy::CutProxy(quint16 upstreamPort, QObject *parent)
    : QObject(parent)
    , m_upstreamPort(upstreamPort)
{
    connect(&m_server, &QTcpServer::newConnection, this, &CutProxy::accept);
}

CutProxy::~CutProxy()
{
    // The sockets are children of the listening server and of this proxy.
    qDeleteAll(std::exchange(m_pipes, {}));
}

bool CutProxy::listen()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QUrl CutProxy::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()));
}

void CutProxy::arm(Cut cut, const QByteArray &requestLinePrefix)
{
    m_armed = true;
    m_cut = cut;
    m_prefix = requestLinePrefix;
}

void CutProxy::disarm()
{
    m_armed = false;
}

void CutProxy::accept()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        auto *pipe = new Pipe;
        pipe->client = client;
        pipe->server = new QTcpSocket(this);
        pipe->server->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
        if (!pipe->server->waitForConnected(5000)) {
            client->abort();
            delete pipe->server;
            delete client;
            delete pipe;
            continue;
        }
        m_pipes.append(pipe);
        connect(client, &QTcpSocket::readyRead, this, [this, pipe] { fromClient(pipe); });
        connect(pipe->server, &QTcpSocket::readyRead, this, [this, pipe] { fromServer(pipe); });
        connect(client, &QTcpSocket::disconnected, this, [this, pipe] { drop(pipe); });
        connect(pipe->server, &QTcpSocket::disconnected, this, [this, pipe] { drop(pipe); });
        if (client->bytesAvailable() > 0)
            fromClient(pipe);
    }
}

void CutProxy::fromClient(Pipe *pipe)
{
    QByteArray data = pipe->client->readAll();
    while (!data.isEmpty()) {
        if (pipe->bodyLeft > 0) {
            const qint64 n = std::min<qint64>(pipe->bodyLeft, data.size());
            if (pipe->cutting && m_cut == Cut::BeforeLastByte && n == pipe->bodyLeft) {
                pipe->server->write(data.left(n - 1));
                cut(pipe);
                return;
            }
            pipe->server->write(data.left(n));
            pipe->bodyLeft -= n;
            data.remove(0, n);
            if (pipe->bodyLeft == 0 && pipe->cutting)
                pipe->awaitingAnswer = true;
            continue;
        }
        pipe->head += data;
        data.clear();
        const qsizetype end = pipe->head.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        data = pipe->head.mid(end + 4);
        const QByteArray head = pipe->head.left(end + 4);
        pipe->head.clear();
        pipe->bodyLeft = 0;
        for (const QByteArray &line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().toLower() == "content-length")
                pipe->bodyLeft = line.mid(colon + 1).trimmed().toLongLong();
        }
        pipe->cutting = m_armed && head.startsWith(m_prefix);
        if (pipe->cutting)
            ++m_matched;
        pipe->server->write(head);
        if (pipe->cutting && pipe->bodyLeft == 0) {
            if (m_cut == Cut::BeforeLastByte) {
                cut(pipe);
                return;
            }
            pipe->awaitingAnswer = true;
        }
    }
}

void CutProxy::fromServer(Pipe *pipe)
{
    const QByteArray data = pipe->server->readAll();
    if (pipe->awaitingAnswer) {
        cut(pipe); // the server did the work; the client never hears of it
        return;
    }
    pipe->client->write(data);
}

void CutProxy::cut(Pipe *pipe)
{
    ++m_cuts;
    close(pipe, true);
}

void CutProxy::drop(Pipe *pipe)
{
    close(pipe, false);
}

void CutProxy::close(Pipe *pipe, bool abortClient)
{
    if (!m_pipes.removeOne(pipe))
        return;
    QTcpSocket *client = std::exchange(pipe->client, nullptr);
    QTcpSocket *server = std::exchange(pipe->server, nullptr);
    delete pipe;
    client->disconnect(this);
    server->disconnect(this);
    if (abortClient)
        client->abort(); // a reset: the client hears nothing more
    else
        client->disconnectFromHost();
    client->deleteLater();
    // What was forwarded still reaches the server, then it sees the connection end.
    connect(server, &QAbstractSocket::disconnected, server, &QObject::deleteLater);
    server->disconnectFromHost();
    if (server->state() == QAbstractSocket::UnconnectedState)
        server->deleteLater();
}

} // namespace isolation::test
