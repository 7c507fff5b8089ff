#include "websocketrelay.h"

#include "terminalrelays.h"
#include "upstreamexchange.h"

#include "net/tcpstream.h"
#include "tunnel/tunnelstream.h"
#include "websocket/websockethandshake.h"

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcDoorman)

namespace isolation {

namespace {

constexpr qint64 kHighWater = 512 * 1024;

QByteArray responseBytes(const HttpResponse &r)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(r.status) + ' ' + reasonPhrase(r.status) + "\r\n";
    for (const auto &h : r.headers) {
        if (!equalsNoCase(h.first, "connection") && !equalsNoCase(h.first, "content-length"))
            out += h.first + ": " + h.second + "\r\n";
    }
    out += "Content-Length: " + QByteArray::number(r.body.size()) + "\r\nConnection: close\r\n\r\n" + r.body;
    return out;
}

} // namespace

WebSocketRelay::WebSocketRelay(Doorman *doorman, Admission admission, QObject *parent)
    : QObject(parent)
    , m_doorman(doorman)
    , m_admission(std::move(admission))
{
    m_expiry.setSingleShot(true);
    connect(&m_expiry, &QTimer::timeout, this, [this] { close("its view token expired"); });
}

WebSocketRelay::~WebSocketRelay()
{
    if (m_sandbox) {
        m_sandbox->abort();
        delete m_sandbox;
    }
    if (m_browser) {
        abortDevice(m_browser);
        delete m_browser;
    }
}

void WebSocketRelay::startForSocket(QIODevice *browser, const QByteArray &browserKey, const QByteArray &rest)
{
    m_browser = browser;
    browser->setParent(this);
    m_browserKey = browserKey;
    m_browserRest = rest;
    onDeviceDisconnected(browser, this, [this] { close("the browser closed it"); });
    handshake();
}

void WebSocketRelay::startForStream(TunnelStream *stream)
{
    m_stream = stream;
    connect(stream, &TunnelStream::closed, this, [this] { close("the hub closed it"); });
    handshake();
}

void WebSocketRelay::handshake()
{
    if (m_admission.answer) {
        refuse(*m_admission.answer);
        return;
    }
    const qint64 left = m_admission.claims.expiresAt - m_doorman->clock().unixSeconds();
    if (left <= 0) {
        refuse(Doorman::refusal(401, QStringLiteral("unauthorized"), QStringLiteral("the view has expired")));
        return;
    }
    m_expiry.start(std::chrono::milliseconds(left * 1000));
    QPointer<WebSocketRelay> self(this);
    m_doorman->targets()->resolve(m_admission.claims.sessionId, [self](Result<ViewTarget> target) {
        if (!self || self->m_closed)
            return;
        if (!target) {
            self->refuse(Doorman::refusal(503, QStringLiteral("unavailable"), target.error().message));
            return;
        }
        if (!self->m_admission.needsTerminalRelay) {
            self->connectUpstream(target.value(), self->m_admission.upstreamTarget, {});
            return;
        }
        const ViewTarget t = target.value();
        self->m_doorman->terminalRelays()->relayFor(self->m_admission.claims, t, [self, t](Result<TerminalRelay> relay) {
            if (!self || self->m_closed)
                return;
            if (!relay) {
                // The page falls back to its line mode (docs/protocol.md, "View kinds").
                self->refuse(Doorman::refusal(502, QStringLiteral("bad_gateway"), relay.error().message));
                return;
            }
            QByteArray path = self->m_admission.upstreamTarget;
            path.replace("{relay}", QByteArray::number(relay.value().port));
            self->m_toRelay = true;
            self->connectUpstream(t, path, {{"X-Isolation-Relay-Secret", relay.value().secret}});
        });
    });
}

void WebSocketRelay::connectUpstream(const ViewTarget &t, const QByteArray &path, const HttpHeaders &extra)
{
    m_upstreamKey = websocket::newKey();
    HttpHeaders headers;
    headers.append(qMakePair(QByteArray("Host"), QByteArray(t.host.toUtf8() + ':' + QByteArray::number(t.port))));
    headers.append(m_admission.headers);
    headers.append(qMakePair(QByteArray("Connection"), QByteArray("Upgrade")));
    headers.append(qMakePair(QByteArray("Upgrade"), QByteArray("websocket")));
    headers.append(qMakePair(QByteArray("Sec-WebSocket-Version"), QByteArray("13")));
    headers.append(qMakePair(QByteArray("Sec-WebSocket-Key"), QByteArray(m_upstreamKey)));
    headers.append(qMakePair(QByteArray("X-EXECD-ACCESS-TOKEN"), QByteArray(t.accessToken)));
    headers.append(extra);
    m_doorman->countForwarded();
    m_up.reset(new UpstreamExchange(m_doorman->pool(), {t.host, t.port}, this));
    m_up->start("GET", path, fieldsOf(headers), UpstreamExchange::Body::None);
}

// The view's relay did not take the WebSocket (it exited when idle, or its sandbox is a new one):
// the next WebSocket of the view starts a new relay.
void WebSocketRelay::forgetRelay()
{
    if (m_toRelay)
        m_doorman->terminalRelays()->forget(m_admission.claims.viewId);
}

void WebSocketRelay::upstreamFailed(const QString &)
{
    forgetRelay();
    refuse(Doorman::refusal(502, QStringLiteral("bad_gateway"), QStringLiteral("the sandbox did not answer")));
}

void WebSocketRelay::onUpstreamHead()
{
    if (m_closed || !m_up)
        return;
    if (m_up->status() != 101) {
        // The sandbox said no: pass its answer on (cleaned), and that is the end of it.
        forgetRelay();
        HttpResponse r;
        r.status = m_up->status();
        r.headers = headersOf(HeaderPolicy::towardsBrowser(m_up->headers()));
        r.body = m_up->read().left(64 * 1024);
        refuse(r);
        return;
    }
    if (fieldValue(m_up->headers(), "sec-websocket-accept") != websocket::acceptFor(m_upstreamKey)) {
        refuse(Doorman::refusal(
            502, QStringLiteral("bad_gateway"), QStringLiteral("the sandbox's WebSocket handshake is wrong")));
        return;
    }
    HttpHeaders answer;
    for (const char *name : {"sec-websocket-protocol", "sec-websocket-extensions"}) {
        const QByteArray v = fieldValue(m_up->headers(), name).toByteArray();
        if (!v.isEmpty())
            answer.append({name, v});
    }
    HeaderPolicy::addStandard(&answer);
    m_sandbox = m_up->takeSocket(&m_sandboxRest);
    dropUpstream();
    if (!m_sandbox) {
        close("the sandbox's connection went away");
        return;
    }
    m_sandbox->setParent(this);
    if (m_browser) {
        QByteArray head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: "
            + websocket::acceptFor(m_browserKey) + "\r\n";
        for (const auto &h : std::as_const(answer))
            head += h.first + ": " + h.second + "\r\n";
        m_browser->write(head + "\r\n");
    } else if (m_stream) {
        m_stream->respond(200, answer);
    }
    splice();
}

void WebSocketRelay::refuse(const HttpResponse &response)
{
    if (m_closed)
        return;
    if (m_browser) {
        m_browser->write(responseBytes(response));
        disconnectDevice(m_browser);
    } else if (m_stream) {
        HttpHeaders headers;
        for (const auto &h : response.headers)
            headers.append({h.first.toLower(), h.second});
        m_stream->respondWith(response.status, headers, response.body);
    }
    m_closed = true;
    m_expiry.stop();
    dropUpstream();
    // The browser's socket (a child) goes with the relay, once it has flushed the answer.
    QTimer::singleShot(1000, this, &QObject::deleteLater);
}

void WebSocketRelay::splice()
{
    connect(m_sandbox, &TcpStream::readyRead, this, &WebSocketRelay::pumpToBrowser);
    connect(m_sandbox, &TcpStream::bytesWritten, this, &WebSocketRelay::pumpToSandbox);
    connect(m_sandbox, &TcpStream::disconnected, this, [this] {
        pumpToBrowser();
        close("the sandbox closed it");
    });
    if (m_browser) {
        connect(m_browser, &QIODevice::readyRead, this, &WebSocketRelay::pumpToSandbox);
        connect(m_browser, &QIODevice::bytesWritten, this, &WebSocketRelay::pumpToBrowser);
    } else if (m_stream) {
        connect(m_stream, &TunnelStream::readyRead, this, &WebSocketRelay::pumpToSandbox);
        connect(m_stream, &TunnelStream::bytesWritten, this, &WebSocketRelay::pumpToBrowser);
        connect(m_stream, &TunnelStream::remoteFinishedReceived, this, [this] { close("the browser closed it"); });
    }
    if (!m_browserRest.isEmpty())
        m_sandbox->write(std::exchange(m_browserRest, {}));
    if (!m_sandboxRest.isEmpty()) {
        if (m_browser)
            m_browser->write(m_sandboxRest);
        else if (m_stream)
            m_stream->write(m_sandboxRest);
        m_sandboxRest.clear();
    }
    pumpToSandbox();
    pumpToBrowser();
}

void WebSocketRelay::pumpToSandbox()
{
    if (m_closed || !m_sandbox)
        return;
    while (m_sandbox->bytesToWrite() < kHighWater) {
        QByteArray data;
        if (m_browser)
            data = m_browser->read(kHighWater);
        else if (m_stream)
            data = m_stream->read(kHighWater);
        if (data.isEmpty())
            break;
        m_sandbox->write(data);
    }
    if (m_stream && m_stream->atEnd())
        close("the browser closed it");
}

void WebSocketRelay::pumpToBrowser()
{
    if (m_closed || !m_sandbox)
        return;
    const auto queued = [this] {
        return m_browser ? m_browser->bytesToWrite() : m_stream ? m_stream->bytesToWrite() : kHighWater;
    };
    while (queued() < kHighWater) {
        const QByteArray data = m_sandbox->read(kHighWater);
        if (data.isEmpty())
            break;
        if (m_browser)
            m_browser->write(data);
        else if (m_stream)
            m_stream->write(data);
    }
}

void WebSocketRelay::close(const char *why)
{
    if (m_closed)
        return;
    m_closed = true;
    qCInfo(lcDoorman) << "WebSocket of view" << m_admission.claims.viewId << "closed:" << why;
    m_expiry.stop();
    dropUpstream();
    if (m_sandbox)
        m_sandbox->disconnectFromHost();
    if (m_browser)
        disconnectDevice(m_browser);
    if (m_stream && !m_stream->isClosed()) {
        if (m_stream->hasResponseHead())
            m_stream->finish();
        else
            m_stream->reset(TunnelStream::Cancel);
    }
    // Let the sockets flush what they hold before they go with the relay.
    QTimer::singleShot(1000, this, &QObject::deleteLater);
}

void WebSocketRelay::dropUpstream()
{
    if (!m_up)
        return;
    // It may be calling us right now: it goes on the next turn of the loop.
    std::shared_ptr<UpstreamExchange> gone(std::move(m_up));
    QTimer::singleShot(0, this, [gone] { });
}

} // namespace isolation
