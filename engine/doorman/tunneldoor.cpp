#include "tunneldoor.h"

#include "doorman.h"
#include "viewexchange.h"
#include "websocketrelay.h"

#include "tunnel/tunnelstream.h"

#include <QPointer>

#include <charconv>

namespace isolation {

namespace {

// The answer goes into the stream; the stream's events (the request body as it comes, room for
// more of the answer, the hub giving up) reach the exchange through this, called directly.
class StreamDownstream final : public ViewDownstream, private TunnelStreamListener
{
public:
    explicit StreamDownstream(TunnelStream *stream)
        : m_stream(stream)
    {
        stream->setListener(this);
    }
    ~StreamDownstream() override
    {
        if (m_stream)
            m_stream->setListener(nullptr);
    }
    // The exchange this answers for (it owns this downstream), and whose request body it feeds.
    void attach(ViewExchange *exchange) { m_exchange = exchange; }
    void pull()
    {
        if (!m_stream || !m_exchange)
            return;
        while (m_stream->bytesAvailable() > 0 && m_exchange->pendingRequestBytes() < ViewExchange::HighWater)
            m_exchange->requestBody(m_stream->read(64 * 1024));
        if (m_stream->atEnd())
            m_exchange->requestBodyEnd();
    }

    bool alive() const override { return m_stream && !m_stream->isClosed(); }
    // The session writes the names in lower case and leaves out connection-specific ones.
    void respond(const HttpResponse &response) override
    {
        if (m_stream)
            m_stream->respondWith(response.status, response.headers, response.body);
    }
    void sendHead(int status, const HeaderFields &headers, qint64 length) override
    {
        if (!m_stream)
            return;
        HeaderFields h = headers;
        char digits[24];
        if (length >= 0) {
            const auto end = std::to_chars(digits, digits + sizeof digits, length).ptr;
            h.append({"content-length", QByteArrayView(digits, end - digits)});
        }
        m_stream->respondFields(status, h);
    }
    void write(const QByteArray &data) override
    {
        if (m_stream)
            m_stream->write(data);
    }
    void finish() override
    {
        if (m_stream)
            m_stream->finish();
    }
    void abort() override
    {
        if (m_stream)
            m_stream->reset(TunnelStream::InternalError);
    }
    qint64 bytesToWrite() const override { return m_stream ? m_stream->bytesToWrite() : 0; }
    void setDrainHandler(std::function<void()> handler) override { m_drain = std::move(handler); }

private:
    void streamReadyRead(TunnelStream *) override { pull(); }
    void streamRemoteFinished(TunnelStream *) override { pull(); }
    void streamBytesWritten(TunnelStream *) override
    {
        if (m_drain)
            m_drain();
    }
    void streamClosed(TunnelStream *, quint32 code) override
    {
        if (m_exchange && code != TunnelStream::NoError)
            m_exchange->retire(); // the hub gave up on it
    }

    QPointer<TunnelStream> m_stream;
    ViewExchange *m_exchange = nullptr;
    std::function<void()> m_drain;
};

} // namespace

TunnelDoor::TunnelDoor(Doorman *doorman, QObject *parent)
    : QObject(parent)
    , m_doorman(doorman)
    , m_exchanges(this)
{ }

void TunnelDoor::serve(TunnelStream *stream)
{
    // The session says with the head whether a body follows (remoteFinished()).
    if (!stream->isClosed())
        start(stream);
}

void TunnelDoor::start(TunnelStream *stream)
{
    const TunnelHead &head = stream->requestHead();
    DoorRequest r;
    r.websocket = head.method == "CONNECT" && head.protocol == "websocket";
    r.method = r.websocket ? QByteArray("GET") : head.method;
    // "/v/<viewId>/rest": the view from the path, the rest is the view's own.
    const QByteArray path = head.path;
    const qsizetype slash = path.indexOf('/', 3);
    r.viewId = QString::fromLatin1(path.mid(3, slash < 0 ? -1 : slash - 3));
    r.target = slash < 0 ? QByteArray("/") : path.mid(slash);
    if (!r.target.startsWith('/'))
        r.target.prepend('/');
    r.headers = head.headers;
    r.proto = headerValue(head.headers, "x-forwarded-proto") == "https" ? "https" : "http";
    r.host = headerValue(head.headers, "x-forwarded-host");
    r.clientAddress = headerValue(head.headers, "x-forwarded-for");
    if (head.method == "CONNECT" && !r.websocket) {
        stream->respondWith(405, {{"content-type", "application/json"}},
            "{\"error\":{\"code\":\"method_not_allowed\",\"message\":\"CONNECT only for WebSockets\"}}");
        return;
    }
    if (!ViewToken::isViewId(r.viewId)) {
        r.viewId.clear();
    }
    Admission admission = m_doorman->admit(r);
    if (r.websocket) {
        auto *relay = new WebSocketRelay(m_doorman, std::move(admission), this);
        relay->startForStream(stream);
        return;
    }
    if (admission.answer) {
        StreamDownstream(stream).respond(*admission.answer);
        return;
    }
    bool ok = false;
    qint64 length = headerValue(head.headers, "content-length").toLongLong(&ok);
    if (!ok)
        length = (stream->remoteFinished() && stream->bytesAvailable() == 0) ? 0 : -1;
    auto down = std::make_unique<StreamDownstream>(stream);
    StreamDownstream *raw = down.get();
    ViewExchange *exchange
        = m_exchanges.add(std::make_unique<ViewExchange>(m_doorman, std::move(admission), std::move(down), length));
    raw->attach(exchange);
    exchange->onDone = [exchange] { exchange->retire(); };
    exchange->onRequestDrained = [raw] { raw->pull(); };
    exchange->start();
    raw->pull();
}

} // namespace isolation
