#include "httpdoor.h"

#include "doorman.h"
#include "viewexchange.h"
#include "websocketrelay.h"

#include <QAbstractSocket>

namespace isolation {

namespace {

// An HttpReply that may not exist yet: the exchange can hear from the sandbox before the whole
// request body is in (the server hands out the reply only then), so until then it queues.
class HttpDownstream final : public ViewDownstream
{
public:
    explicit HttpDownstream(bool head)
        : m_headRequest(head)
    { }

    void attach(HttpReply reply)
    {
        m_reply = reply;
        m_attached = true;
        if (m_response)
            m_reply.send(*std::exchange(m_response, std::nullopt));
        if (m_head) {
            startHead(m_head->status, fieldsOf(m_head->headers), m_head->length);
            m_head.reset();
        }
        if (!m_queued.isEmpty())
            m_reply.write(std::exchange(m_queued, {}));
        if (m_finished)
            finish();
        if (m_aborted)
            abort();
        if (m_drain)
            m_reply.setDrainHandler(m_drain);
        if (m_drain)
            m_drain();
    }
    void detach() { m_gone = true; }
    bool attached() const { return m_attached; }
    bool exchangeDone = false; // the exchange is over; it goes once the reply is attached

    bool alive() const override { return !m_gone && (!m_attached || m_reply.connected()); }
    void respond(const HttpResponse &response) override
    {
        if (m_attached)
            m_reply.send(response);
        else
            m_response = response;
    }
    void sendHead(int status, const HeaderFields &headers, qint64 length) override
    {
        if (m_attached)
            startHead(status, headers, length);
        else
            m_head = Head {status, headersOf(headers), length}; // the views do not last until then
    }
    void write(const QByteArray &data) override
    {
        if (m_attached)
            m_reply.write(data);
        else
            m_queued.append(data);
    }
    void finish() override
    {
        m_finished = true;
        if (m_attached)
            m_reply.finish();
    }
    void abort() override
    {
        m_aborted = true;
        if (m_attached)
            m_reply.finish(); // a sized answer that ends short closes the connection; chunked ends early
    }
    qint64 bytesToWrite() const override { return m_attached ? m_reply.bytesToWrite() : m_queued.size(); }
    void setDrainHandler(std::function<void()> handler) override
    {
        m_drain = handler;
        if (m_attached)
            m_reply.setDrainHandler(std::move(handler));
    }

private:
    struct Head
    {
        int status;
        HttpHeaders headers;
        qint64 length;
    };
    void startHead(int status, const HeaderFields &headers, qint64 length)
    {
        const bool noBody = (status >= 100 && status < 200) || status == 204 || status == 304;
        m_reply.sendHead(status, headers, length >= 0 || noBody || m_headRequest ? std::max<qint64>(length, 0) : -1);
    }

    bool m_headRequest;
    HttpReply m_reply;
    bool m_attached = false;
    bool m_gone = false;
    std::optional<HttpResponse> m_response;
    std::optional<Head> m_head;
    QByteArray m_queued;
    bool m_finished = false;
    bool m_aborted = false;
    std::function<void()> m_drain;
};

class DoorSink final : public HttpBodySink
{
public:
    DoorSink(ViewExchange *exchange, HttpDownstream *down)
        : m_exchange(exchange)
        , m_down(down)
    {
        // The sandbox took request bytes: the connection reads more of the body.
        m_exchange->onRequestDrained = [this] { resumed(); };
    }
    ~DoorSink() override
    {
        m_exchange->onRequestDrained = nullptr;
        if (!m_completed) {
            // The request never came whole: nothing may reach the sandbox as if it had.
            m_down->detach();
            m_exchange->retire();
        }
    }
    bool write(QByteArrayView piece) override
    {
        m_exchange->requestBody(piece);
        return true;
    }
    // Backpressure: a sandbox that reads the body slowly (or not at all) holds the browser back
    // through TCP instead of the body piling up here. An exchange that is over takes no more.
    bool full() const override
    {
        return !m_down->exchangeDone && m_exchange->pendingRequestBytes() >= ViewExchange::HighWater;
    }
    void complete(const HttpRequest &, HttpReply reply) override
    {
        m_completed = true;
        m_exchange->onRequestDrained = nullptr;
        m_exchange->requestBodyEnd();
        m_down->attach(reply);
        if (m_down->exchangeDone)
            m_exchange->retire();
    }

private:
    // A plain pointer: the exchange goes only once this sink completed (its onDone below, after
    // attach()) or by this sink's destructor, so it outlives every use here. (The door's server
    // and with it this sink go before the door's children, the exchanges.)
    ViewExchange *m_exchange;
    HttpDownstream *m_down; // owned by the exchange
    bool m_completed = false;
};

} // namespace

DoorRequest HttpDoor::doorRequest(const Doorman &doorman, const HttpRequest &request)
{
    DoorRequest r;
    r.method = request.method;
    r.target = request.target;
    r.headers = request.headers;
    r.host = request.header("host");
    r.viewId = doorman.viewIdFromHost(r.host);
    r.proto = QByteArrayLiteral("http");
    r.clientAddress = forwardedFor(request.peer);
    return r;
}

HttpDoor::HttpDoor(Doorman *doorman, QObject *parent)
    : QObject(parent)
    , m_doorman(doorman)
    , m_exchanges(this)
    , m_server(this)
{
    m_server.setLimits(limits());
    m_server.setStreamSockets(true);
    m_server.streamEverything([this](const HttpRequest &head) { return open(head); });
    m_server.setUpgradeHandler([this](const HttpRequest &request, QIODevice *device, const QByteArray &,
                                   const QByteArray &rest) { return upgrade(request, device, rest); });
}

HttpLimits HttpDoor::limits()
{
    // Deadlines and connection caps: HttpLimits' defaults (docs/architecture.md, "Limits on
    // every door"). Every client of this door is on this computer, so the cap per peer address
    // is in effect one for all of them; slow heads and idle connections make room for new ones.
    HttpLimits l;
    l.maxHeaderBytes = 16 * 1024;
    l.maxHeaderCount = 64;
    l.maxBodyBytes = 1024 * 1024; // for refused bodies read and dropped; forwarded ones stream
    l.decodeTarget = false; // ViewPath checks and normalises the target
    return l;
}

Result<quint16> HttpDoor::listen(const QHostAddress &address, quint16 port)
{
    return m_server.listenTcp(address, port);
}

void HttpDoor::close()
{
    m_server.close();
}

Result<std::unique_ptr<HttpBodySink>, HttpResponse> HttpDoor::open(const HttpRequest &head)
{
    static const QByteArrayList methods {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
    if (!methods.contains(head.method))
        return Doorman::refusal(
            405, QStringLiteral("method_not_allowed"), QStringLiteral("method not allowed"), true);
    if (head.header("host").isEmpty())
        return Doorman::refusal(
            400, QStringLiteral("bad_request"), QStringLiteral("one Host header is required"), true);
    Admission admission = m_doorman->admit(doorRequest(*m_doorman, head));
    if (admission.answer)
        return *admission.answer;
    bool ok = false;
    qint64 length = head.header("content-length").toLongLong(&ok);
    if (!ok)
        length = head.header("transfer-encoding").isEmpty() ? 0 : -1;
    auto down = std::make_unique<HttpDownstream>(head.method == "HEAD");
    HttpDownstream *raw = down.get();
    ViewExchange *exchange
        = m_exchanges.add(std::make_unique<ViewExchange>(m_doorman, std::move(admission), std::move(down), length));
    exchange->onDone = [exchange, raw] {
        if (raw->attached())
            exchange->retire();
        else
            raw->exchangeDone = true; // its answer waits in `raw` for the reply
    };
    exchange->start();
    return std::unique_ptr<HttpBodySink>(new DoorSink(exchange, raw));
}

bool HttpDoor::upgrade(const HttpRequest &request, QIODevice *device, const QByteArray &rest)
{
    const QByteArray key = request.header("sec-websocket-key");
    if (request.method != "GET" || request.header("upgrade").toLower() != "websocket"
        || request.header("sec-websocket-version") != "13" || QByteArray::fromBase64(key).size() != 16)
        return false; // the server answers 400 and closes
    DoorRequest r = doorRequest(*m_doorman, request);
    r.websocket = true;
    Admission admission = m_doorman->admit(r);
    auto *relay = new WebSocketRelay(m_doorman, std::move(admission), this);
    relay->startForSocket(device, key, rest);
    return true;
}

} // namespace isolation
