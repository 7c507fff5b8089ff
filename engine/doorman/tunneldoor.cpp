#include "tunneldoor.h"

#include "doorman.h"
#include "viewexchange.h"
#include "websocketrelay.h"

#include "tunnel/tunnelstream.h"

#include <QPointer>

#include <charconv>

namespace isolation {

namespace {

class StreamDownstream final : public ViewDownstream
{
public:
    explicit StreamDownstream(TunnelStream *stream)
        : m_stream(stream)
    { }
    ~StreamDownstream() override
    {
        if (m_stream)
            QObject::disconnect(m_drainConnection);
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
    void setDrainHandler(std::function<void()> handler) override
    {
        QObject::disconnect(m_drainConnection);
        if (m_stream && handler)
            m_drainConnection = QObject::connect(
                m_stream, &TunnelStream::bytesWritten, m_stream, [handler = std::move(handler)](qint64) { handler(); });
    }

private:
    QPointer<TunnelStream> m_stream;
    QMetaObject::Connection m_drainConnection;
};

} // namespace

TunnelDoor::TunnelDoor(Doorman *doorman, QObject *parent)
    : QObject(parent)
    , m_doorman(doorman)
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
    auto *exchange
        = new ViewExchange(m_doorman, std::move(admission), std::make_unique<StreamDownstream>(stream), length, this);
    exchange->onDone = [exchange] { exchange->deleteLater(); };
    QPointer<TunnelStream> s(stream);
    QPointer<ViewExchange> ex(exchange);
    auto pull = [s, ex] {
        if (!s || !ex)
            return;
        while (s->bytesAvailable() > 0 && ex->pendingRequestBytes() < ViewExchange::HighWater)
            ex->requestBody(s->read(64 * 1024));
        if (s->atEnd())
            ex->requestBodyEnd();
    };
    exchange->onRequestDrained = pull;
    connect(stream, &TunnelStream::readyRead, exchange, pull);
    connect(stream, &TunnelStream::remoteFinishedReceived, exchange, pull);
    connect(stream, &TunnelStream::closed, exchange, [ex](quint32 code) {
        if (ex && code != TunnelStream::NoError)
            ex->deleteLater(); // the hub gave up on it
    });
    exchange->start();
    pull();
}

} // namespace isolation
