#include "httpconnection.h"

#include "httpserver.h"
#include "net/tcpstream.h"

#include <QAbstractSocket>
#include <QIODevice>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QTimer>

#include <sys/socket.h>

Q_LOGGING_CATEGORY(lcHttp, "isolation.http")

namespace isolation {

namespace {

bool bodyAllowed(int status)
{
    return status >= 200 && status != 204 && status != 304;
}

bool managedHeader(QByteArrayView name)
{
    return equalsNoCase(name, "content-length") || equalsNoCase(name, "transfer-encoding")
        || equalsNoCase(name, "connection");
}

// Room for a head: the status line, the headers, and what the connection adds (framing).
template<typename Headers>
qsizetype headRoom(const Headers &headers)
{
    qsizetype size = 128;
    for (const auto &h : headers)
        size += nameOf(h).size() + valueOf(h).size() + 4;
    return size;
}

// The status line and the headers the route gave, less those this connection writes itself.
template<typename Headers>
void writeHeadStart(HeadWriter &out, int status, const Headers &headers)
{
    out << "HTTP/1.1 ";
    out.number(status) << ' ' << reasonPhrase(status) << "\r\n";
    for (const auto &h : headers) {
        if (!managedHeader(nameOf(h)))
            out << nameOf(h) << ": " << valueOf(h) << "\r\n";
    }
}

constexpr qint64 kReadBufferBytes = 1024 * 1024;
constexpr qint64 kBodyPieceBytes = 256 * 1024; // read from an answer's device at a time
constexpr qint64 kWriteHighWater = 1024 * 1024; // queued in the socket before we read more of it
constexpr int kLingerMs = 2000; // a closing connection reads and drops the peer's bytes this long at most
// A body going to a sink is parsed this much at a time, so that the sink's full() is looked at
// between pieces (it holds at most about this much more than it asked for).
constexpr qsizetype kSinkFeedBytes = 256 * 1024;

} // namespace

HttpConnection::HttpConnection(QIODevice *device, const QHostAddress &peer, HttpServer *server)
    : QObject(server)
    , m_device(device)
    , m_peer(peer)
    , m_server(server)
    , m_parser(server->limits())
    , m_since(server->now())
{
    m_device->setParent(this);
    m_parser.onHeaders = [this](const HttpRequest &request) { onHead(request); };
    connect(m_device, &QIODevice::readyRead, this, &HttpConnection::onReadyRead);
    connect(m_device, &QIODevice::bytesWritten, this, &HttpConnection::pumpBody);
    // Read at most this much ahead of what we process: with streamed bodies the TCP window, not
    // our memory, absorbs a peer that sends faster than the sink takes.
    m_stream = qobject_cast<TcpStream *>(m_device);
    if (auto *tcp = qobject_cast<QAbstractSocket *>(m_device))
        tcp->setReadBufferSize(kReadBufferBytes);
    if (m_stream)
        m_stream->setReadBufferSize(kReadBufferBytes);
    if (auto *local = qobject_cast<QLocalSocket *>(m_device))
        local->setReadBufferSize(kReadBufferBytes);
    onDeviceDisconnected(m_device, this, [this] { onPeerClosed(); });
    if (m_device->bytesAvailable() > 0)
        scheduleProcess();
}

HttpConnection::~HttpConnection()
{
    if (m_server)
        m_server->forget(this);
}

void HttpConnection::onHead(const HttpRequest &head)
{
    m_streamed = false;
    m_sink.reset();
    m_sinkStopped = false;
    m_sinkPaused = false;
    m_refusal.reset();
    m_dropped = 0;
    m_dropLimitHit = false;
    if (m_parser.upgrading())
        return; // the upgrade handler takes the request whole; nothing is opened for it here
    enter(Phase::Body);
    HttpRequest request = head;
    request.peer = m_peer;
    bool ok = false;
    const qint64 length = head.header("content-length").toLongLong(&ok);
    bool willRead = !ok || length <= m_server->limits().maxBodyBytes;
    if (auto opened = m_server->openStream(request)) {
        m_streamed = true;
        m_streamHead = std::move(request);
        if (opened->ok()) {
            m_sink = std::move(*opened).value();
            if (m_sink)
                m_sink->m_resume = [this] { resumeSink(); };
        } else
            m_refusal = opened->error();
        m_parser.setBodySink([this](QByteArrayView piece) { return takeBody(piece); });
        willRead = willRead || m_sink != nullptr;
    }
    if (willRead && head.header("expect").toLower() == "100-continue")
        m_device->write("HTTP/1.1 100 Continue\r\n\r\n");
}

bool HttpConnection::takeBody(QByteArrayView piece)
{
    if (m_sink && !m_sinkStopped) {
        if (m_sink->write(piece))
            return true;
        m_sinkStopped = true;
        return true;
    }
    // Refused bodies are read and dropped so the answer reaches the peer and the connection lives
    // on; past the body limit that is not worth it: answer at once and close.
    m_dropped += piece.size();
    if (m_dropped <= m_server->limits().maxBodyBytes)
        return true;
    m_dropLimitHit = true;
    return false;
}

void HttpConnection::completeStream(HttpRequest request)
{
    m_streamed = false;
    m_headRequest = request.method == "HEAD";
    m_busy = true;
    ++m_sequence;
    std::unique_ptr<HttpBodySink> sink = std::move(m_sink);
    m_sinkPaused = false;
    enter(Phase::Busy);
    if (sink)
        sink->m_resume = nullptr;
    if (m_refusal) {
        sendResponse(m_sequence, *std::exchange(m_refusal, std::nullopt));
        return;
    }
    if (sink)
        sink->complete(request, HttpReply(this, m_sequence));
}

void HttpConnection::onReadyRead()
{
    pull();
    process();
}

void HttpConnection::pull()
{
    if (m_in.size() >= kReadBufferBytes || !m_device || m_device->bytesAvailable() <= 0)
        return;
    m_in.append(m_stream ? m_stream->takeAll() : m_device->readAll());
    if (m_phase == Phase::Idle)
        enter(Phase::Head); // the next request's first byte: its head has headTimeoutMs from now
    else if (m_phase == Phase::Body)
        m_since = m_server->now();
}

void HttpConnection::enter(Phase phase)
{
    m_phase = phase;
    m_since = m_server->now();
}

void HttpConnection::resumeSink()
{
    if (!m_sinkPaused)
        return;
    m_sinkPaused = false;
    m_since = m_server->now();
    scheduleProcess();
}

void HttpConnection::evict()
{
    m_server->uncount(this);
    closeNow();
}

void HttpConnection::checkDeadline(qint64 now)
{
    if (m_closing)
        return;
    const HttpLimits limits = m_server->limits();
    const qint64 waited = now - m_since;
    const auto timeOut = [this](const QString &why) {
        ++m_server->m_counters.timedOut;
        m_sink.reset(); // its body never came whole
        m_streamed = false;
        m_refusal.reset();
        answerError(408, why);
    };
    switch (m_phase) {
    case Phase::Head:
        if (m_writeBlocked) {
            // Its next request is here; the peer is not reading the answers to the last ones.
            if (limits.idleTimeoutMs > 0 && waited >= limits.idleTimeoutMs) {
                ++m_server->m_counters.timedOut;
                closeNow();
            }
        } else if (limits.headTimeoutMs > 0 && waited >= limits.headTimeoutMs) {
            timeOut(QStringLiteral("the request head did not come whole in time"));
        }
        break;
    case Phase::Idle:
        if (limits.idleTimeoutMs > 0 && waited >= limits.idleTimeoutMs) {
            ++m_server->m_counters.timedOut;
            m_keepAlive = false;
            closeGracefully();
        }
        break;
    case Phase::Body:
        if (m_sinkPaused) {
            // Waiting for the route, not for the peer: no deadline. A drain the sink did not
            // report is seen here.
            if (!m_sink || !m_sink->full())
                resumeSink();
            break;
        }
        if (limits.idleTimeoutMs > 0 && waited >= limits.idleTimeoutMs)
            timeOut(QStringLiteral("the request body stalled"));
        break;
    case Phase::Busy:
        break;
    }
}

void HttpConnection::onPeerClosed()
{
    m_closing = true;
    deleteLater();
}

void HttpConnection::scheduleProcess()
{
    if (m_processScheduled)
        return;
    m_processScheduled = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_processScheduled = false;
            pull();
            process();
        },
        Qt::QueuedConnection);
}

void HttpConnection::process()
{
    while (!m_busy && !m_closing) {
        if (m_in.isEmpty()) {
            pull(); // what stayed in the device while m_in was full
            if (m_in.isEmpty())
                return;
        }
        if (m_device->bytesToWrite() >= kWriteHighWater) {
            // The peer does not read its answers: the next request waits until it does (pumpBody()
            // goes on), so pipelined requests do not pile answers up here.
            m_writeBlocked = true;
            return;
        }
        if (m_sink && !m_sinkStopped && m_sink->full()) {
            m_sinkPaused = true; // resumeSink() goes on (or the sweep, once the sink is no longer full)
            return;
        }
        const qsizetype offered = m_sink ? std::min<qsizetype>(m_in.size(), kSinkFeedBytes) : m_in.size();
        const qsizetype used = m_parser.feed(m_in.constData(), offered);
        m_head.append(m_in.constData(), std::min<qsizetype>(used, 256 * 1024 - m_head.size()));
        m_in.remove(0, used);

        switch (m_parser.state()) {
        case HttpRequestParser::State::NeedMore:
            if (used == 0)
                return;
            continue;
        case HttpRequestParser::State::Error:
            if (m_streamed && m_dropLimitHit) {
                m_keepAlive = false;
                completeStream(m_streamHead);
                return;
            }
            m_sink.reset(); // its body never came whole
            answerError(m_parser.errorStatus(), m_parser.errorMessage());
            return;
        case HttpRequestParser::State::Upgrade: {
            HttpRequest request = m_parser.takeRequest();
            request.peer = m_peer;
            const QByteArray head = std::exchange(m_head, {});
            const QByteArray rest = std::exchange(m_in, {});
            disconnect(m_device, nullptr, this, nullptr);
            if (auto *tcp = qobject_cast<QAbstractSocket *>(m_device))
                tcp->setReadBufferSize(0); // the new owner reads as it likes
            if (m_stream)
                m_stream->setReadBufferSize(0);
            if (m_server->upgrade(request, m_device, head, rest)) {
                m_device = nullptr; // the upgrade handler owns it now
                m_stream = nullptr;
                m_closing = true;
                deleteLater();
                return;
            }
            connect(m_device, &QIODevice::readyRead, this, &HttpConnection::onReadyRead);
            connect(m_device, &QIODevice::bytesWritten, this, &HttpConnection::pumpBody);
            answerError(400, QStringLiteral("this resource cannot be upgraded"));
            return;
        }
        case HttpRequestParser::State::Complete: {
            HttpRequest request = m_parser.takeRequest();
            m_head.truncate(0);
            request.peer = m_peer;
            enter(Phase::Busy);
            m_keepAlive = m_parser.keepAlive();
            m_headRequest = request.method == "HEAD";
            if (m_streamed) {
                request.params = m_streamHead.params;
                completeStream(std::move(request));
                return;
            }
            m_busy = true;
            ++m_sequence;
            m_server->dispatch(request, HttpReply(this, m_sequence));
            return; // a reply (now or later) resumes processing
        }
        }
    }
}

void HttpConnection::answerError(int status, const QString &message)
{
    if (status == 408) // a slow client among many: the server's sweep counts them in one line
        qCDebug(lcHttp) << "refusing request:" << status << message;
    else
        qCInfo(lcHttp) << "refusing request:" << status << message;
    m_keepAlive = false;
    m_busy = true;
    enter(Phase::Busy);
    ++m_sequence;
    const QString code = status == 408 ? QStringLiteral("request_timeout")
        : status == 413                  ? QStringLiteral("too_large")
        : status == 431                  ? QStringLiteral("headers_too_large")
                                         : QStringLiteral("bad_request");
    sendResponse(m_sequence, HttpResponse::error(status, code, message));
}

void HttpConnection::sendResponse(quint64 sequence, HttpResponse response)
{
    if (!isCurrent(sequence) || m_streaming || m_body || !m_device)
        return;
    if (response.header("connection").toLower() == "close") // the route wants the connection closed
        m_keepAlive = false;
    const bool withBody = bodyAllowed(response.status) && !m_headRequest;
    QByteArray out;
    {
        HeadWriter w(out, headRoom(response.headers) + (withBody ? response.body.size() : 0));
        writeHeadStart(w, response.status, response.headers);
        if (bodyAllowed(response.status)) {
            w << "Content-Length: ";
            w.number(response.body.size()) << "\r\n";
        }
        if (!m_keepAlive)
            w << "Connection: close\r\n";
        w << "\r\n";
        if (withBody)
            w << response.body;
    }
    m_device->write(out);
    completeExchange();
}

void HttpConnection::sendHead(quint64 sequence, int status, HttpHeaders headers, std::optional<qint64> length)
{
    if (isCurrent(sequence) && !m_streaming && !m_body && m_device)
        startStreaming(status, headers, length);
}

void HttpConnection::sendHead(quint64 sequence, int status, const HeaderFields &headers, std::optional<qint64> length)
{
    if (isCurrent(sequence) && !m_streaming && !m_body && m_device)
        startStreaming(status, headers, length);
}

template<typename Headers>
void HttpConnection::startStreaming(int status, const Headers &headers, std::optional<qint64> length)
{
    QByteArray out;
    {
        HeadWriter w(out, headRoom(headers));
        writeHeadStart(w, status, headers);
        m_sized = length.has_value();
        if (m_sized) {
            m_sizedBody = bodyAllowed(status) && !m_headRequest;
            m_sizedLeft = m_sizedBody ? *length : 0;
            if (bodyAllowed(status)) {
                w << "Content-Length: ";
                w.number(*length) << "\r\n";
            }
        } else {
            m_chunkBody = bodyAllowed(status) && !m_headRequest;
            if (bodyAllowed(status))
                w << "Transfer-Encoding: chunked\r\n";
        }
        if (!m_keepAlive)
            w << "Connection: close\r\n";
        w << "\r\n";
    }
    m_device->write(out);
    m_streaming = true;
}

qint64 HttpConnection::bytesToWrite() const
{
    return m_device ? m_device->bytesToWrite() : 0;
}

void HttpConnection::setDrainHandler(quint64 sequence, std::function<void()> handler, qint64 lowWater)
{
    if (!isCurrent(sequence))
        return;
    m_drained = std::move(handler);
    m_drainLowWater = lowWater;
}

void HttpConnection::writeChunk(quint64 sequence, const QByteArray &chunk)
{
    if (!isCurrent(sequence) || !m_streaming || chunk.isEmpty() || !m_device)
        return;
    if (m_sized) {
        const qint64 n = std::min<qint64>(chunk.size(), m_sizedLeft);
        if (n > 0 && m_sizedBody)
            m_device->write(chunk.constData(), n);
        m_sizedLeft -= n;
        return;
    }
    if (m_chunkBody)
        m_device->write(QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n");
}

void HttpConnection::finishChunks(quint64 sequence)
{
    if (!isCurrent(sequence) || !m_streaming || !m_device)
        return;
    m_streaming = false;
    if (m_sized) {
        m_sized = false;
        if (m_sizedLeft > 0) // the body came short of its Content-Length: the peer must see that
            m_keepAlive = false;
    } else if (m_chunkBody) {
        m_device->write("0\r\n\r\n");
    }
    completeExchange();
}

void HttpConnection::sendDevice(
    quint64 sequence, int status, HttpHeaders headers, std::unique_ptr<QIODevice> body, qint64 size)
{
    if (!isCurrent(sequence) || m_streaming || m_body || !m_device)
        return;
    QByteArray out;
    {
        HeadWriter w(out, headRoom(headers));
        writeHeadStart(w, status, headers);
        w << "Content-Length: ";
        w.number(size) << "\r\n";
        if (!m_keepAlive)
            w << "Connection: close\r\n";
        w << "\r\n";
    }
    m_device->write(out);
    if (m_headRequest || size <= 0 || !body) {
        completeExchange();
        return;
    }
    m_body = std::move(body);
    m_bodyLeft = size;
    pumpBody();
}

void HttpConnection::pumpBody()
{
    if (m_writeBlocked && m_device && m_device->bytesToWrite() < kWriteHighWater) {
        m_writeBlocked = false;
        m_since = m_server->now();
        scheduleProcess();
    }
    if (m_drained && m_device && m_device->bytesToWrite() < m_drainLowWater) {
        auto drained = m_drained; // it may replace or clear itself
        drained();
    }
    while (m_body && m_device && m_device->bytesToWrite() < kWriteHighWater) {
        const QByteArray piece = m_body->read(std::min(kBodyPieceBytes, m_bodyLeft));
        if (piece.isEmpty()) {
            qCWarning(lcHttp) << "answer body ended" << m_bodyLeft << "bytes early; closing the connection";
            m_body.reset();
            m_keepAlive = false;
            closeGracefully(); // what was written still goes out
            return;
        }
        m_device->write(piece);
        m_bodyLeft -= piece.size();
        if (m_bodyLeft == 0) {
            m_body.reset();
            completeExchange();
        }
    }
}

void HttpConnection::completeExchange()
{
    m_busy = false;
    m_drained = nullptr;
    if (!m_keepAlive) {
        closeGracefully();
        return;
    }
    const bool more = !m_in.isEmpty() || m_device->bytesAvailable() > 0;
    enter(more ? Phase::Head : Phase::Idle);
    if (more)
        scheduleProcess();
}

void HttpConnection::closeGracefully()
{
    m_closing = true;
    if (m_server)
        m_server->uncount(this); // its end is bounded by kLingerMs; room for a new one now
    auto *tcp = qobject_cast<QAbstractSocket *>(m_device);
    if (!m_stream && !tcp) {
        if (qobject_cast<QLocalSocket *>(m_device))
            disconnectDevice(m_device); // flushes what is queued first
        else
            deleteLater();
        return;
    }
    // A lingering close, as nginx makes: the answer goes out, then our end of the stream
    // (FIN), and what the peer still sends (the rest of a refused body, the next pipelined
    // request) is read and dropped until it closes too or kLingerMs pass. Closing with unread
    // bytes would make the kernel answer with a reset, which can destroy the answer before the
    // peer reads it.
    m_in.clear();
    disconnect(m_device, &QIODevice::readyRead, this, nullptr);
    const auto drop = [this] {
        if (m_stream)
            m_stream->takeAll();
        else if (m_device)
            m_device->readAll();
    };
    connect(m_device, &QIODevice::readyRead, this, drop);
    drop();
    if (m_stream) {
        m_stream->shutdownWrite();
    } else {
        const auto halfClose = [this, tcp] {
            if (!m_halfClosed && tcp->bytesToWrite() == 0 && tcp->state() == QAbstractSocket::ConnectedState) {
                m_halfClosed = true;
                ::shutdown(int(tcp->socketDescriptor()), SHUT_WR);
            }
        };
        connect(tcp, &QAbstractSocket::bytesWritten, this, halfClose);
        halfClose();
    }
    QTimer::singleShot(kLingerMs, this, [this] { closeNow(); });
}

void HttpConnection::closeNow()
{
    m_closing = true;
    if (m_device)
        m_device->close();
    deleteLater();
}

} // namespace isolation
