#include "upstreamexchange.h"

#include "http/llhttpresult.h"
#include "net/tcpstream.h"

#include <QLoggingCategory>

#include <cstring>

Q_LOGGING_CATEGORY(lcUpstream, "isolation.doorman.upstream")

namespace isolation {

namespace {

UpstreamExchange *self(llhttp_t *p)
{
    return static_cast<UpstreamExchange *>(p->data);
}

} // namespace

UpstreamPool::UpstreamPool(QObject *parent)
    : QObject(parent)
{ }

UpstreamPool::~UpstreamPool()
{
    clear();
}

TcpStream *UpstreamPool::take(const UpstreamEndpoint &endpoint, bool *reused)
{
    auto it = m_idle.find(keyOf(endpoint));
    while (it != m_idle.end() && !it->isEmpty()) {
        TcpStream *s = it->takeLast();
        s->setListener(nullptr);
        if (s->isConnected() && s->bytesAvailable() == 0) {
            *reused = true;
            return s;
        }
        s->deleteLater();
    }
    *reused = false;
    // The endpoint is an address (execd's, as the lifecycle API gives it), never a name to look up.
    // The pool stays the parent while an exchange uses the connection: reparenting on every
    // request (child events both ways) cost more than the exchange's own work.
    auto *s = TcpStream::connectTo(QHostAddress(endpoint.host), endpoint.port, this);
    s->setReadBufferSize(UpstreamExchange::ReadAheadBytes);
    return s;
}

void UpstreamPool::giveBack(const UpstreamEndpoint &endpoint, TcpStream *socket)
{
    QList<TcpStream *> &idle = m_idle[keyOf(endpoint)];
    if (idle.size() >= maxIdlePerEndpoint || !socket->isConnected()) {
        socket->deleteLater();
        return;
    }
    // An idle connection that speaks or closes is of no more use.
    socket->setListener(this);
    idle.append(socket);
}

void UpstreamPool::drop(TcpStream *socket)
{
    for (auto &list : m_idle)
        list.removeOne(socket);
    socket->setListener(nullptr);
    socket->abort();
    socket->deleteLater();
}

void UpstreamPool::clear()
{
    for (auto &list : m_idle) {
        for (TcpStream *s : std::as_const(list)) {
            s->setListener(nullptr);
            s->abort();
            delete s;
        }
    }
    m_idle.clear();
}

UpstreamExchange::UpstreamExchange(UpstreamPool *pool, UpstreamEndpoint endpoint, UpstreamListener *listener)
    : m_pool(pool)
    , m_endpoint(std::move(endpoint))
    , m_listener(listener)
{
    llhttp_settings_init(&m_settings);
    m_settings.on_header_field = &UpstreamExchange::onHeaderField;
    m_settings.on_header_value = &UpstreamExchange::onHeaderValue;
    m_settings.on_headers_complete = &UpstreamExchange::onHeadersComplete;
    m_settings.on_body = &UpstreamExchange::onBody;
    m_settings.on_message_complete = &UpstreamExchange::onMessageComplete;
    llhttp_init(&m_parser, HTTP_RESPONSE, &m_settings);
    m_parser.data = this;
}

UpstreamExchange::~UpstreamExchange()
{
    if (m_socket) {
        m_socket->setListener(nullptr);
        m_socket->abort();
        m_socket->deleteLater();
    }
}

void UpstreamExchange::start(
    const QByteArray &method, const QByteArray &target, const HeaderFields &headers, Body body, qint64 length)
{
    m_method = method;
    m_bodyKind = body;
    QByteArray head;
    {
        qsizetype room = method.size() + target.size() + 96;
        for (const HeaderField &h : headers)
            room += h.name.size() + h.value.size() + 4;
        HeadWriter w(head, room);
        w << method << ' ' << target << " HTTP/1.1\r\n";
        for (const HeaderField &h : headers)
            w << h.name << ": " << h.value << "\r\n";
        if (body == Body::Length) {
            w << "Content-Length: ";
            w.number(length) << "\r\n";
        } else if (body == Body::Chunked) {
            w << "Transfer-Encoding: chunked\r\n";
        } else if (method == "POST" || method == "PUT" || method == "PATCH") {
            w << "Content-Length: 0\r\n";
        }
        w << "\r\n";
    }
    m_head = head;
    m_bodyDone = body == Body::None || (body == Body::Length && length == 0);
    bool reused = false;
    m_socket = m_pool->take(m_endpoint, &reused);
    connectSocket(reused);
    m_socket->write(m_head);
}

void UpstreamExchange::connectSocket(bool reused)
{
    m_reused = reused;
    m_socket->setListener(this);
}

void UpstreamExchange::streamBytesWritten(TcpStream *)
{
    if (m_bodyKind != Body::None)
        m_listener->upstreamBodyWritten();
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
    // What the socket holds is parsed now; inside process() (a readyRead receiver reading) the
    // running loop does it.
    if (m_reading && !m_finished && !m_failed && !m_upgraded && m_socket && m_socket->bytesAvailable() > 0)
        process();
    return out;
}

void UpstreamExchange::setReading(bool on)
{
    const bool resumed = on && !m_reading;
    m_reading = on;
    if (resumed)
        process();
}

TcpStream *UpstreamExchange::takeSocket(QByteArray *rest)
{
    if (!m_upgraded || !m_socket)
        return nullptr;
    TcpStream *s = m_socket;
    s->setListener(nullptr);
    s->setParent(nullptr);
    s->setReadBufferSize(ReadAheadBytes);
    *rest = std::exchange(m_in, {});
    m_socket = nullptr;
    return s;
}

void UpstreamExchange::process()
{
    if (m_processing) { // a receiver of what this emits called back: the loop below goes on
        m_processAgain = true;
        return;
    }
    m_processing = true;
    do {
        m_processAgain = false;
        if (!m_socket || m_finished || m_failed || m_upgraded)
            break;
        parseAvailable();
        if (m_failed || m_upgraded)
            break;
        // The head is announced after the parser went through what was read, so that the body that
        // came with it is there too (one write towards the browser, head and body).
        if (m_headersDone && !m_headAnnounced) {
            m_headAnnounced = true;
            m_listener->upstreamHead();
            if (m_failed)
                break;
        }
        if (m_messageDone) {
            complete();
            break;
        }
        if (!m_body.isEmpty())
            m_listener->upstreamReadyRead();
    } while (m_processAgain);
    m_processing = false;
}

void UpstreamExchange::parseAvailable()
{
    while (m_reading && m_body.size() < ReadAheadBytes && !m_messageDone) {
        if (m_in.isEmpty()) {
            m_in = m_socket->takeAll();
            if (m_in.isEmpty())
                break;
        }
        m_anyResponse = true;
        const llhttp_errno_t err = llhttp_execute(&m_parser, m_in.constData(), size_t(m_in.size()));
        // Up to where it stopped: the end, or after a pause (the answer's end), an upgrade's head or an error.
        const qsizetype n = llhttpTaken(&m_parser, err, m_in.constData(), m_in.size());
        if (m_bodyTail >= 0) {
            // The body ran to the end of what was read: it is that buffer, less the front (the
            // front goes by moving the start, no copy).
            QByteArray tail = std::exchange(m_in, {});
            tail.remove(0, m_bodyTail);
            m_bodyTail = -1;
            m_body = std::move(tail);
        } else {
            m_in.remove(0, n);
        }
        if (m_failed || m_messageDone) // the one pause (onMessageComplete) sets m_messageDone
            return;
        if (err != HPE_OK && !(err == HPE_PAUSED_UPGRADE && m_upgraded)) {
            if (m_reused && !m_retried && !m_bodySent && !m_headersDone) {
                // Bytes a pooled connection held from before: not an answer to this request.
                m_in.clear();
                llhttp_init(&m_parser, HTTP_RESPONSE, &m_settings);
                m_parser.data = this;
                m_anyResponse = false;
                m_spans.clear();
                m_headLength = 0;
                m_socket->setListener(nullptr);
                m_socket->abort();
                onDisconnected();
                return;
            }
            fail(QStringLiteral("the sandbox answered malformed HTTP: %1").arg(llhttpWhy(&m_parser, err)));
            return;
        }
        if (m_upgraded) {
            // llhttp stops right after the 101 head; what follows is the new protocol's.
            if (!m_headAnnounced) {
                m_headAnnounced = true;
                m_listener->upstreamHead();
            }
            m_listener->upstreamUpgraded();
            return;
        }
    }
}

void UpstreamExchange::onDisconnected()
{
    if (m_finished || m_failed || m_upgraded)
        return;
    if (!m_anyResponse && m_reused && !m_retried && !m_bodySent && m_socket) {
        // A pooled connection the sandbox had closed: once more, on a fresh one.
        m_retried = true;
        m_socket->setListener(nullptr);
        m_socket->deleteLater();
        bool reused = false;
        TcpStream *fresh = nullptr;
        do {
            fresh = m_pool->take(m_endpoint, &reused);
            if (reused) {
                fresh->abort();
                fresh->deleteLater();
            }
        } while (reused);
        m_socket = fresh;
        connectSocket(false);
        m_socket->write(m_head);
        return;
    }
    if (m_socket && m_socket->bytesAvailable() > 0) {
        m_reading = true;
        process();
        if (m_finished || m_failed || m_upgraded)
            return;
    }
    // The end of a body delimited by the connection's close, or a cut-off answer.
    if (m_headersDone) {
        llhttp_finish(&m_parser);
        if (m_messageDone) {
            if (!m_headAnnounced) {
                m_headAnnounced = true;
                m_listener->upstreamHead();
            }
            complete();
            return;
        }
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
        m_socket->setListener(nullptr);
        m_socket->abort();
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    m_listener->upstreamFailed(why);
}

void UpstreamExchange::complete()
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_socket) {
        TcpStream *s = m_socket;
        m_socket = nullptr;
        s->setListener(nullptr);
        if (m_keepAlive && m_bodyDone && m_in.isEmpty() && s->bytesAvailable() == 0)
            m_pool->giveBack(m_endpoint, s);
        else {
            s->abort();
            s->deleteLater();
        }
    }
    if (!m_body.isEmpty())
        m_listener->upstreamReadyRead();
    m_listener->upstreamFinished();
}

void UpstreamExchange::appendHeadBytes(const char *data, qsizetype size)
{
    if (size <= 0)
        return;
    if (m_headBytes.size() - m_headLength < size)
        m_headBytes.resize(std::max<qsizetype>({1024, 2 * m_headBytes.size(), m_headLength + size}));
    std::memcpy(m_headBytes.data() + m_headLength, data, size_t(size));
    m_headLength += size;
}

int UpstreamExchange::onHeaderField(llhttp_t *p, const char *at, size_t len)
{
    auto *s = self(p);
    if (s->m_inValue || s->m_spans.isEmpty()) {
        if (s->m_spans.size() >= 200)
            return -1;
        s->m_spans.append({s->m_headLength, 0, s->m_headLength, 0});
        s->m_inValue = false;
    }
    // A name split across reads continues where its first piece ended.
    Span &h = s->m_spans.last();
    s->appendHeadBytes(at, qsizetype(len));
    h.nameLength += qsizetype(len);
    h.valueAt = s->m_headLength;
    return h.nameLength > 8192 ? -1 : 0;
}

int UpstreamExchange::onHeaderValue(llhttp_t *p, const char *at, size_t len)
{
    auto *s = self(p);
    s->m_inValue = true;
    if (s->m_spans.isEmpty())
        return -1;
    Span &h = s->m_spans.last();
    s->appendHeadBytes(at, qsizetype(len));
    h.valueLength += qsizetype(len);
    return h.valueLength > 65536 ? -1 : 0;
}

int UpstreamExchange::onHeadersComplete(llhttp_t *p)
{
    auto *s = self(p);
    if (p->status_code >= 100 && p->status_code < 200 && p->status_code != 101) {
        s->m_spans.clear(); // an interim answer: the real one follows
        s->m_headLength = 0;
        s->m_inValue = false;
        return 0;
    }
    s->m_headersDone = true;
    s->m_status = int(p->status_code);
    // The bytes stay where they are from now on: the fields are views of them.
    const char *const bytes = s->m_headBytes.constData();
    for (const Span &h : std::as_const(s->m_spans)) {
        const QByteArrayView name(bytes + h.nameAt, h.nameLength);
        const QByteArrayView value = QByteArrayView(bytes + h.valueAt, h.valueLength).trimmed();
        if (isHttpToken(name) && !hasControlBytes(value))
            s->m_fields.append({name, value});
    }
    const bool chunked = (p->flags & F_CHUNKED) != 0;
    s->m_contentLength = (!chunked && (p->flags & F_CONTENT_LENGTH)) ? qint64(p->content_length) : -1;
    return s->m_method == "HEAD" ? 1 : 0; // 1: the answer to HEAD has no body, whatever it says
}

int UpstreamExchange::onBody(llhttp_t *p, const char *at, size_t len)
{
    auto *s = self(p);
    const char *const in = s->m_in.constData();
    if (s->m_body.isEmpty() && at >= in && at + len == in + s->m_in.size()) {
        s->m_bodyTail = at - in; // taken without a copy once the parser returns
        return 0;
    }
    s->m_body.append(at, qsizetype(len));
    return 0;
}

int UpstreamExchange::onMessageComplete(llhttp_t *p)
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
    s->m_keepAlive = llhttp_should_keep_alive(p) != 0;
    s->m_messageDone = true; // no more parsing; process() completes the exchange
    return HPE_PAUSED;
}

void UpstreamCall::start(UpstreamPool *pool, const UpstreamEndpoint &endpoint, const QByteArray &method,
    const QByteArray &target, const HttpHeaders &headers, const QByteArray &body, Done done, QObject *parent)
{
    auto *call = new UpstreamCall(pool, endpoint, std::move(done), parent);
    call->m_up->start(method, target, fieldsOf(headers), body.isEmpty() ? UpstreamExchange::Body::None : UpstreamExchange::Body::Length,
        body.size());
    if (!body.isEmpty()) {
        call->m_up->writeBody(body);
        call->m_up->finishBody();
    }
}

UpstreamCall::UpstreamCall(UpstreamPool *pool, const UpstreamEndpoint &endpoint, Done done, QObject *parent)
    : QObject(parent)
    , m_up(new UpstreamExchange(pool, endpoint, this))
    , m_done(std::move(done))
{ }

void UpstreamCall::upstreamReadyRead()
{
    m_body += m_up->read();
    if (m_body.size() > 1024 * 1024)
        end(Error::failed(QStringLiteral("the answer is larger than 1 MiB")));
}

void UpstreamCall::upstreamFinished()
{
    m_body += m_up->read();
    end(UpstreamAnswer {m_up->status(), m_body});
}

void UpstreamCall::upstreamFailed(const QString &why)
{
    end(Error::unavailable(why));
}

void UpstreamCall::end(Result<UpstreamAnswer> result)
{
    if (m_ended)
        return;
    m_ended = true;
    if (m_done)
        m_done(std::move(result));
    deleteLater();
}

} // namespace isolation
