#include "upstreamexchange.h"

#include <QLoggingCategory>
#include <QTcpSocket>

Q_LOGGING_CATEGORY(lcUpstream, "isolation.doorman.upstream")

namespace isolation {

namespace {

UpstreamExchange *self(http_parser *p)
{
    return static_cast<UpstreamExchange *>(p->data);
}

bool validHeader(const QByteArray &name, const QByteArray &value)
{
    static const QByteArrayView extra("!#$%&'*+-.^_`|~");
    if (name.isEmpty())
        return false;
    for (char c : name) {
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alnum && !extra.contains(c))
            return false;
    }
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && u != '\t') || u == 0x7f)
            return false;
    }
    return true;
}

} // namespace

UpstreamPool::UpstreamPool(QObject *parent)
    : QObject(parent)
{ }

UpstreamPool::~UpstreamPool()
{
    clear();
}

QTcpSocket *UpstreamPool::take(const UpstreamEndpoint &endpoint, bool *reused)
{
    auto it = m_idle.find(endpoint.key());
    while (it != m_idle.end() && !it->isEmpty()) {
        QTcpSocket *s = it->takeLast();
        disconnect(s, nullptr, this, nullptr);
        if (s->state() == QAbstractSocket::ConnectedState && s->bytesAvailable() == 0) {
            *reused = true;
            return s;
        }
        s->deleteLater();
    }
    *reused = false;
    auto *s = new QTcpSocket;
    s->setReadBufferSize(UpstreamExchange::ReadAheadBytes);
    s->connectToHost(endpoint.host, endpoint.port);
    return s;
}

void UpstreamPool::giveBack(const UpstreamEndpoint &endpoint, QTcpSocket *socket)
{
    QList<QTcpSocket *> &idle = m_idle[endpoint.key()];
    if (idle.size() >= maxIdlePerEndpoint || socket->state() != QAbstractSocket::ConnectedState) {
        socket->deleteLater();
        return;
    }
    socket->setParent(this);
    // An idle connection that speaks or closes is of no more use.
    connect(socket, &QTcpSocket::readyRead, this, [this, socket] { drop(socket); });
    connect(socket, &QTcpSocket::disconnected, this, [this, socket] { drop(socket); });
    idle.append(socket);
}

void UpstreamPool::drop(QTcpSocket *socket)
{
    for (auto &list : m_idle)
        list.removeOne(socket);
    disconnect(socket, nullptr, this, nullptr);
    socket->abort();
    socket->deleteLater();
}

void UpstreamPool::clear()
{
    for (auto &list : m_idle) {
        for (QTcpSocket *s : std::as_const(list)) {
            disconnect(s, nullptr, this, nullptr);
            s->abort();
            delete s;
        }
    }
    m_idle.clear();
}

int UpstreamPool::idleCount() const
{
    int n = 0;
    for (const auto &list : m_idle)
        n += int(list.size());
    return n;
}

UpstreamExchange::UpstreamExchange(UpstreamPool *pool, UpstreamEndpoint endpoint, QObject *parent)
    : QObject(parent)
    , m_pool(pool)
    , m_endpoint(std::move(endpoint))
{
    http_parser_init(&m_parser, HTTP_RESPONSE);
    m_parser.data = this;
    http_parser_settings_init(&m_settings);
    m_settings.on_header_field = &UpstreamExchange::onHeaderField;
    m_settings.on_header_value = &UpstreamExchange::onHeaderValue;
    m_settings.on_headers_complete = &UpstreamExchange::onHeadersComplete;
    m_settings.on_body = &UpstreamExchange::onBody;
    m_settings.on_message_complete = &UpstreamExchange::onMessageComplete;
}

UpstreamExchange::~UpstreamExchange()
{
    if (m_socket) {
        disconnect(m_socket, nullptr, this, nullptr);
        m_socket->abort();
        m_socket->deleteLater();
    }
}

void UpstreamExchange::start(
    const QByteArray &method, const QByteArray &target, const HttpHeaders &headers, Body body, qint64 length)
{
    m_method = method;
    m_bodyKind = body;
    QByteArray head;
    head.reserve(512);
    head += method + ' ' + target + " HTTP/1.1\r\n";
    for (const auto &h : headers)
        head += h.first + ": " + h.second + "\r\n";
    if (body == Body::Length)
        head += "Content-Length: " + QByteArray::number(length) + "\r\n";
    else if (body == Body::Chunked)
        head += "Transfer-Encoding: chunked\r\n";
    else if (method == "POST" || method == "PUT" || method == "PATCH")
        head += "Content-Length: 0\r\n";
    head += "\r\n";
    m_head = head;
    m_bodyDone = body == Body::None || (body == Body::Length && length == 0);
    bool reused = false;
    m_socket = m_pool->take(m_endpoint, &reused);
    m_socket->setParent(this);
    connectSocket(reused);
    m_socket->write(m_head);
}

void UpstreamExchange::connectSocket(bool reused)
{
    m_reused = reused;
    QTcpSocket *s = m_socket;
    connect(s, &QTcpSocket::readyRead, this, &UpstreamExchange::onReadyRead);
    connect(s, &QTcpSocket::disconnected, this, &UpstreamExchange::onDisconnected);
    connect(s, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError e) {
        if (e == QAbstractSocket::RemoteHostClosedError)
            return; // disconnected() follows and decides
        onDisconnected();
    });
    connect(s, &QTcpSocket::bytesWritten, this, [this] {
        if (m_bodyKind != Body::None)
            Q_EMIT bodyWritten();
    });
    if (!reused) {
        connect(s, &QTcpSocket::connected, this, [s] { s->setSocketOption(QAbstractSocket::LowDelayOption, 1); });
    }
}

void UpstreamExchange::sendRaw(const QByteArray &bytes)
{
    if (m_socket && !m_failed)
        m_socket->write(bytes);
}

void UpstreamExchange::writeBody(QByteArrayView data)
{
    if (data.isEmpty() || m_bodyDone || m_failed)
        return;
    m_bodySent = true;
    if (m_bodyKind == Body::Chunked)
        sendRaw(QByteArray::number(data.size(), 16) + "\r\n" + data.toByteArray() + "\r\n");
    else
        sendRaw(data.toByteArray());
}

void UpstreamExchange::finishBody()
{
    if (m_bodyDone)
        return;
    m_bodyDone = true;
    if (m_bodyKind == Body::Chunked)
        sendRaw("0\r\n\r\n");
}

qint64 UpstreamExchange::bytesToWrite() const
{
    return m_socket ? m_socket->bytesToWrite() : 0;
}

QByteArray UpstreamExchange::read()
{
    QByteArray out = std::exchange(m_body, {});
    if (m_reading && !m_finished && !m_failed && !m_upgraded)
        QMetaObject::invokeMethod(this, &UpstreamExchange::process, Qt::QueuedConnection);
    return out;
}

void UpstreamExchange::setReading(bool on)
{
    m_reading = on;
    if (on)
        QMetaObject::invokeMethod(this, &UpstreamExchange::process, Qt::QueuedConnection);
}

QTcpSocket *UpstreamExchange::takeSocket(QByteArray *rest)
{
    if (!m_upgraded || !m_socket)
        return nullptr;
    QTcpSocket *s = m_socket;
    disconnect(s, nullptr, this, nullptr);
    s->setParent(nullptr);
    s->setReadBufferSize(ReadAheadBytes);
    *rest = std::exchange(m_in, {});
    m_socket = nullptr;
    return s;
}

void UpstreamExchange::onReadyRead()
{
    process();
}

void UpstreamExchange::process()
{
    if (!m_socket || m_finished || m_failed || m_upgraded)
        return;
    while (m_reading && m_body.size() < ReadAheadBytes) {
        if (m_in.isEmpty()) {
            m_in = m_socket->read(ReadAheadBytes);
            if (m_in.isEmpty())
                break;
        }
        m_anyResponse = true;
        const size_t n = http_parser_execute(&m_parser, &m_settings, m_in.constData(), size_t(m_in.size()));
        m_in.remove(0, qsizetype(n));
        if (m_failed || m_finished)
            return;
        const auto err = HTTP_PARSER_ERRNO(&m_parser);
        if (err == HPE_PAUSED) {
            http_parser_pause(&m_parser, 0);
            continue;
        }
        if (err != HPE_OK) {
            if (m_reused && !m_retried && !m_bodySent && !m_headersDone) {
                // Bytes a pooled connection held from before: not an answer to this request.
                m_in.clear();
                http_parser_init(&m_parser, HTTP_RESPONSE);
                m_parser.data = this;
                m_anyResponse = false;
                m_headers.clear();
                disconnect(m_socket, nullptr, this, nullptr);
                m_socket->abort();
                onDisconnected();
                return;
            }
            fail(QStringLiteral("the sandbox answered malformed HTTP: %1")
                     .arg(QString::fromLatin1(http_errno_description(err))));
            return;
        }
        if (m_upgraded) {
            // http-parser stops right after the 101 head; what follows is the new protocol's.
            Q_EMIT upgraded();
            return;
        }
    }
    if (!m_body.isEmpty())
        Q_EMIT readyRead();
}

void UpstreamExchange::onDisconnected()
{
    if (m_finished || m_failed || m_upgraded)
        return;
    if (!m_anyResponse && m_reused && !m_retried && !m_bodySent && m_socket) {
        // A pooled connection the sandbox had closed: once more, on a fresh one.
        m_retried = true;
        disconnect(m_socket, nullptr, this, nullptr);
        m_socket->deleteLater();
        bool reused = false;
        QTcpSocket *fresh = nullptr;
        do {
            fresh = m_pool->take(m_endpoint, &reused);
            if (reused) {
                fresh->abort();
                fresh->deleteLater();
            }
        } while (reused);
        m_socket = fresh;
        m_socket->setParent(this);
        connectSocket(false);
        m_socket->write(m_head);
        return;
    }
    if (m_socket && m_socket->bytesAvailable() > 0) {
        m_reading = true;
        process();
        if (m_finished || m_failed)
            return;
    }
    // The end of a body delimited by the connection's close, or a cut-off answer.
    if (m_headersDone) {
        http_parser_execute(&m_parser, &m_settings, nullptr, 0);
        if (m_finished)
            return;
    }
    fail(m_anyResponse ? QStringLiteral("the sandbox closed the connection mid-answer")
                       : QStringLiteral("the sandbox is not reachable: %1")
                             .arg(m_socket ? m_socket->errorString() : QStringLiteral("no connection")));
}

void UpstreamExchange::fail(const QString &why)
{
    if (m_failed || m_finished)
        return;
    m_failed = true;
    qCDebug(lcUpstream) << "exchange with" << m_endpoint.key() << "failed:" << why;
    if (m_socket) {
        disconnect(m_socket, nullptr, this, nullptr);
        m_socket->abort();
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    Q_EMIT failed(why);
}

void UpstreamExchange::complete()
{
    m_finished = true;
    if (m_socket) {
        QTcpSocket *s = m_socket;
        m_socket = nullptr;
        disconnect(s, nullptr, this, nullptr);
        if (m_keepAlive && m_bodyDone && m_in.isEmpty() && s->bytesAvailable() == 0)
            m_pool->giveBack(m_endpoint, s);
        else {
            s->abort();
            s->deleteLater();
        }
    }
    if (!m_body.isEmpty())
        Q_EMIT readyRead();
    Q_EMIT finished();
}

int UpstreamExchange::onHeaderField(http_parser *p, const char *at, size_t len)
{
    auto *s = self(p);
    if (s->m_inValue || s->m_headers.isEmpty()) {
        if (s->m_headers.size() >= 200)
            return -1;
        s->m_headers.append(QPair<QByteArray, QByteArray>());
        s->m_inValue = false;
    }
    s->m_headers.last().first.append(at, qsizetype(len));
    return s->m_headers.last().first.size() > 8192 ? -1 : 0;
}

int UpstreamExchange::onHeaderValue(http_parser *p, const char *at, size_t len)
{
    auto *s = self(p);
    s->m_inValue = true;
    if (!s->m_headers.isEmpty())
        s->m_headers.last().second.append(at, qsizetype(len));
    return s->m_headers.last().second.size() > 65536 ? -1 : 0;
}

int UpstreamExchange::onHeadersComplete(http_parser *p)
{
    auto *s = self(p);
    if (p->status_code >= 100 && p->status_code < 200 && p->status_code != 101) {
        s->m_headers.clear(); // an interim answer: the real one follows
        s->m_inValue = false;
        return 0;
    }
    s->m_headersDone = true;
    s->m_status = int(p->status_code);
    HttpHeaders clean;
    for (auto &h : s->m_headers) {
        h.second = h.second.trimmed();
        if (validHeader(h.first, h.second))
            clean.append(h);
    }
    s->m_headers = std::move(clean);
    const bool chunked = (p->flags & F_CHUNKED) != 0;
    s->m_contentLength = (!chunked && p->content_length != ULLONG_MAX) ? qint64(p->content_length) : -1;
    Q_EMIT s->headReceived();
    return s->m_method == "HEAD" ? 1 : 0; // 1: the answer to HEAD has no body, whatever it says
}

int UpstreamExchange::onBody(http_parser *p, const char *at, size_t len)
{
    self(p)->m_body.append(at, qsizetype(len));
    return 0;
}

int UpstreamExchange::onMessageComplete(http_parser *p)
{
    auto *s = self(p);
    if (!s->m_headersDone) // the end of an interim (1xx) answer
        return 0;
    if (s->m_status == 101) {
        s->m_upgraded = p->upgrade != 0;
        if (!s->m_upgraded)
            return -1;
        return 0;
    }
    s->m_keepAlive = http_should_keep_alive(p) != 0;
    http_parser_pause(p, 1);
    QMetaObject::invokeMethod(s, &UpstreamExchange::complete, Qt::QueuedConnection);
    s->m_finished = true; // no more parsing; complete() runs from the loop
    return 0;
}

} // namespace isolation
