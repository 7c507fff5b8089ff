#include "viewrelay.h"

#include "tunnelregistry.h"
#include "viewservice.h"

#include "net/tcpstream.h"
#include "tunnel/tunnelstream.h"
#include "websocket/websockethandshake.h"

#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

Q_LOGGING_CATEGORY(lcViewRelay, "isolation.hub.views")

namespace isolation::hub {

namespace {

constexpr qint64 kHighWater = 512 * 1024;

// The browser's headers as the tunnel carries them: lower case, nothing hop-by-hop or named in
// Connection, no forwarding header the browser made up; ours added.
HttpHeaders forwarded(const HttpRequest &request, bool websocket)
{
    const QByteArray connection = request.header("connection");
    HttpHeaders out;
    out.reserve(request.headers.size() + 3);
    for (const auto &h : request.headers) {
        const QByteArray n = sharedLowerHeaderName(h.first); // no copy for the common names
        if ((!connection.isEmpty() && hasToken(connection, n)) || n == "connection" || n == "keep-alive"
            || n == "proxy-connection" || n == "te" || n == "trailer" || n == "transfer-encoding" || n == "upgrade"
            || n == "host" || n == "expect" || n == "proxy-authorization" || n == "forwarded"
            || n.startsWith("x-forwarded-") || n.startsWith("x-isolation-") || n == "http2-settings")
            continue;
        if (websocket && (n == "sec-websocket-key" || n == "sec-websocket-version" || n == "content-length"))
            continue;
        out.append({n, h.second});
    }
    out.append(qMakePair(QByteArrayLiteral("x-forwarded-for"), forwardedFor(request.peer)));
    out.append(qMakePair(QByteArrayLiteral("x-forwarded-proto"), QByteArrayLiteral("http")));
    out.append(qMakePair(QByteArrayLiteral("x-forwarded-host"), request.header("host")));
    return out;
}

// Views of `head`'s headers (valid while it is), less those the reply writes itself.
HeaderFields towardsBrowser(const TunnelHead &head)
{
    HeaderFields out;
    for (const auto &h : head.headers) {
        if (isNoCase(h.first, "content-length") || isNoCase(h.first, "connection")
            || isNoCase(h.first, "transfer-encoding"))
            continue;
        out.append({h.first, h.second});
    }
    return out;
}

QByteArray plainAnswer(int status, const QByteArray &code, const QByteArray &message)
{
    const QByteArray body = "{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}}";
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status)
        + "\r\nContent-Type: application/json\r\nReferrer-Policy: no-referrer\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

// The answer to one relayed request: the stream's head and body passed to the browser's reply as
// they come, with flow control. The stream calls it directly (no signal connections per
// request); it goes when the answer is complete or the stream gave up.
class RelayAnswer final : private TunnelStreamListener
{
public:
    static void start(TunnelStream *stream, const HttpReply &reply, bool head)
    {
        auto *answer = new RelayAnswer(stream, reply, head);
        stream->setListener(answer);
        if (answer->onHead())
            return;
        if (stream->isClosed()) // it ended while the request's body was still coming
            answer->streamClosed(stream, stream->closeErrorCode());
    }

private:
    RelayAnswer(TunnelStream *stream, const HttpReply &reply, bool head)
        : m_stream(stream)
        , m_reply(reply)
        , m_head(head)
    { }
    void streamHeadReceived(TunnelStream *) override { onHead(); }
    void streamReadyRead(TunnelStream *) override { pump(); }
    void streamRemoteFinished(TunnelStream *) override { pump(); }
    void streamClosed(TunnelStream *, quint32 code) override
    {
        if (!m_started) {
            m_reply.send(HttpResponse::error(502, QStringLiteral("tunnel_lost"),
                QStringLiteral("the server did not answer (HTTP/2 error %1)").arg(code)));
            end();
            return;
        }
        if (pump())
            return;
        if (code != TunnelStream::NoError) {
            m_reply.finish(); // cut short: a sized answer closes the connection
            end();
        }
    }

    // True when the answer is complete (and this is gone).
    bool onHead()
    {
        if (m_started || !m_stream || !m_stream->hasResponseHead())
            return false;
        m_started = true;
        const TunnelHead &h = m_stream->responseHead();
        bool ok = false;
        const qint64 length = h.header("content-length").toLongLong(&ok);
        const bool noBody = h.status == 204 || h.status == 304 || (h.status >= 100 && h.status < 200);
        if (ok || noBody || m_head)
            m_reply.sendHead(h.status, towardsBrowser(h), ok ? length : 0);
        else
            m_reply.sendHead(h.status, headersOf(towardsBrowser(h)));
        m_reply.setDrainHandler([this] { pump(); }); // dropped with the answer's end, before this goes
        return pump();
    }
    // True when the answer is complete (and this is gone).
    bool pump()
    {
        if (!m_started || !m_stream)
            return false;
        while (m_stream->bytesAvailable() > 0 && m_reply.bytesToWrite() < kHighWater)
            m_reply.write(m_stream->read(kHighWater));
        if (!m_stream->atEnd())
            return false;
        m_reply.finish();
        end();
        return true;
    }
    void end()
    {
        if (m_stream)
            m_stream->setListener(nullptr);
        delete this;
    }

    QPointer<TunnelStream> m_stream;
    HttpReply m_reply;
    bool m_head;
    bool m_started = false;
};

// One relayed request: the sink takes the browser's body into the stream; the answer goes back
// once the server hands out the reply (after the whole body), streamed as the tunnel delivers it.
class RelaySink final : public HttpBodySink
{
public:
    explicit RelaySink(TunnelStream *stream)
        : m_stream(stream)
    { }
    ~RelaySink() override
    {
        if (!m_completed && m_stream)
            m_stream->reset(TunnelStream::Cancel); // the request never came whole
    }
    bool write(QByteArrayView piece) override
    {
        if (m_stream)
            m_stream->write(piece.toByteArray());
        return true;
    }
    void complete(const HttpRequest &request, HttpReply reply) override
    {
        m_completed = true;
        TunnelStream *stream = m_stream;
        if (!stream) {
            reply.send(HttpResponse::error(502, QStringLiteral("tunnel_lost"), QStringLiteral("the server went away")));
            return;
        }
        stream->finish();
        RelayAnswer::start(stream, reply, request.method == "HEAD");
    }

private:
    QPointer<TunnelStream> m_stream;
    bool m_completed = false;
};

// A WebSocket: the browser's upgraded socket spliced to an extended-CONNECT stream.
class WebSocketSplice final : public QObject
{
public:
    WebSocketSplice(QIODevice *browser, TunnelStream *stream, QByteArray key, QByteArray rest, QObject *parent)
        : QObject(parent)
        , m_browser(browser)
        , m_stream(stream)
        , m_key(std::move(key))
        , m_rest(std::move(rest))
    {
        browser->setParent(this);
        connect(stream, &TunnelStream::headReceived, this, &WebSocketSplice::onHead);
        connect(stream, &TunnelStream::closed, this, [this] { end(); });
        onDeviceDisconnected(browser, this, [this] { end(); });
    }

private:
    void onHead()
    {
        const TunnelHead &h = m_stream->responseHead();
        if (h.status != 200) {
            m_browser->write(
                plainAnswer(h.status >= 400 ? h.status : 502, "refused", "the view refused the WebSocket"));
            end();
            return;
        }
        QByteArray head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: "
            + websocket::acceptFor(m_key) + "\r\n";
        for (const char *name : {"sec-websocket-protocol", "sec-websocket-extensions"}) {
            const QByteArray v = h.header(name);
            if (!v.isEmpty())
                head += QByteArray(name) + ": " + v + "\r\n";
        }
        m_browser->write(head + "\r\n");
        connect(m_browser, &QIODevice::readyRead, this, &WebSocketSplice::up);
        connect(m_stream, &TunnelStream::bytesWritten, this, &WebSocketSplice::up);
        connect(m_stream, &TunnelStream::readyRead, this, &WebSocketSplice::down);
        connect(m_browser, &QIODevice::bytesWritten, this, &WebSocketSplice::down);
        connect(m_stream, &TunnelStream::remoteFinishedReceived, this, [this] {
            down();
            end();
        });
        if (!m_rest.isEmpty())
            m_stream->write(std::exchange(m_rest, {}));
        up();
        down();
    }
    void up()
    {
        while (m_stream && m_browser && m_stream->bytesToWrite() < kHighWater) {
            const QByteArray data = m_browser->read(kHighWater);
            if (data.isEmpty())
                break;
            m_stream->write(data);
        }
    }
    void down()
    {
        while (m_stream && m_browser && m_browser->bytesToWrite() < kHighWater && m_stream->bytesAvailable() > 0)
            m_browser->write(m_stream->read(kHighWater));
    }
    void end()
    {
        if (m_ended)
            return;
        m_ended = true;
        if (m_stream && !m_stream->isClosed())
            m_stream->reset(TunnelStream::Cancel);
        if (m_browser)
            disconnectDevice(m_browser);
        QTimer::singleShot(1000, this, &QObject::deleteLater);
    }

    QPointer<QIODevice> m_browser;
    QPointer<TunnelStream> m_stream;
    QByteArray m_key;
    QByteArray m_rest;
    bool m_ended = false;
};

} // namespace

ViewRelay::ViewRelay(ViewService &views, TunnelRegistry &tunnels, QString suffix, QObject *parent)
    : QObject(parent)
    , m_views(views)
    , m_tunnels(tunnels)
    , m_suffix(std::move(suffix))
    , m_guard({m_suffix.toLower()}, m_suffix.toLower(), [](QStringView label) { return ViewToken::isViewId(label); })
{ }

QString ViewRelay::viewIdFromHost(QByteArrayView host) const
{
    // A browser asks with the same host again and again.
    if (!m_lastHost.isNull() && host == m_lastHost)
        return m_lastViewId;
    m_lastViewId = parseViewIdFromHost(host);
    m_lastHost = host.toByteArray();
    return m_lastViewId;
}

QString ViewRelay::parseViewIdFromHost(QByteArrayView host) const
{
    QByteArray h = host.toByteArray().toLower();
    const qsizetype colon = h.lastIndexOf(':');
    if (colon >= 0)
        h.truncate(colon);
    const QByteArray suffix = '.' + m_suffix.toUtf8();
    if (!h.endsWith(suffix))
        return {};
    const QString id = QString::fromLatin1(h.first(h.size() - suffix.size()));
    return ViewToken::isViewId(id) ? id : QString();
}

void ViewRelay::registerRoutes(HttpServer &preview)
{
    preview.setStreamSockets(true);
    HttpLimits limits = preview.limits();
    limits.decodeTarget = false; // the target goes on as it came; the doorman checks it
    preview.setLimits(limits);
    preview.streamEverything([this](const HttpRequest &head) { return open(head); });
    preview.setUpgradeHandler([this](const HttpRequest &request, QIODevice *device, const QByteArray &,
                                  const QByteArray &rest) { return upgrade(request, device, rest); });
}

Result<std::unique_ptr<HttpBodySink>, HttpResponse> ViewRelay::open(const HttpRequest &request)
{
    static const QByteArrayList methods {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
    if (!methods.contains(request.method))
        return HttpResponse::error(405, QStringLiteral("method_not_allowed"), QStringLiteral("method not allowed"));
    if (!m_guard.servesHost(request))
        return RequestGuard::misdirected();
    const QString viewId = viewIdFromHost(request.header("host"));
    const ViewRecord *view = m_views.view(viewId);
    if (!view)
        return HttpResponse::error(404, QStringLiteral("no_such_view"), QStringLiteral("no such view"));
    HubTunnel *tunnel = m_tunnels.tunnel(view->serverId);
    if (!tunnel)
        return HttpResponse::error(
            503, QStringLiteral("server_offline"), QStringLiteral("the view's server is offline"));
    TunnelHead head;
    head.method = request.method;
    head.scheme = "https";
    head.authority = view->serverId.toUtf8();
    head.path = "/v/" + viewId.toLatin1() + request.target;
    head.headers = forwarded(request, false);
    const bool noBody = request.header("content-length").isEmpty() && request.header("transfer-encoding").isEmpty();
    auto stream = tunnel->open(head, noBody);
    if (!stream)
        return HttpResponse::error(502, QStringLiteral("tunnel_lost"), stream.error().message);
    return std::unique_ptr<HttpBodySink>(new RelaySink(stream.value()));
}

bool ViewRelay::upgrade(const HttpRequest &request, QIODevice *device, const QByteArray &rest)
{
    const QByteArray key = request.header("sec-websocket-key");
    if (request.method != "GET" || request.header("upgrade").toLower() != "websocket"
        || request.header("sec-websocket-version") != "13" || QByteArray::fromBase64(key).size() != 16)
        return false;
    if (!m_guard.servesHost(request)) {
        device->write(plainAnswer(421, "misdirected_request", "this server does not serve that host name"));
        disconnectDevice(device);
        return true;
    }
    const QString viewId = viewIdFromHost(request.header("host"));
    const ViewRecord *view = m_views.view(viewId);
    HubTunnel *tunnel = view ? m_tunnels.tunnel(view->serverId) : nullptr;
    if (!tunnel) {
        device->write(
            plainAnswer(view ? 503 : 404, view ? "server_offline" : "no_such_view", "the view is not reachable"));
        disconnectDevice(device);
        return true;
    }
    TunnelHead head;
    head.method = "CONNECT";
    head.protocol = "websocket";
    head.scheme = "https";
    head.authority = view->serverId.toUtf8();
    head.path = "/v/" + viewId.toLatin1() + request.target;
    head.headers = forwarded(request, true);
    auto stream = tunnel->open(head, false);
    if (!stream) {
        device->write(plainAnswer(502, "tunnel_lost", "the server went away"));
        disconnectDevice(device);
        return true;
    }
    new WebSocketSplice(device, stream.value(), key, rest, this);
    return true;
}

} // namespace isolation::hub
