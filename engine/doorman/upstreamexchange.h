// One HTTP/1.1 exchange with a sandbox's execd: the request written by us (head, then a body of
// known length or chunked), the answer parsed with llhttp as it arrives and handed on piece
// by piece, with flow control both ways. Keep-alive connections are pooled per endpoint; a
// WebSocket handshake answered 101 hands its socket over.
#pragma once

#include "http/httprequest.h"
#include "core/result.h"
#include "net/tcpstream.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <llhttp.h>

#include <functional>
#include <memory>

namespace isolation {

struct UpstreamEndpoint
{
    QString host; // an IP address (execd's endpoint is 127.0.0.1 for the engine)
    quint16 port = 0;
    QString key() const { return host + QLatin1Char(':') + QString::number(port); }
};

// Idle keep-alive connections, per endpoint. A connection that closes or talks while idle is dropped.
class UpstreamPool final : public QObject, private TcpStreamListener
{
    Q_OBJECT
public:
    explicit UpstreamPool(QObject *parent = nullptr);
    ~UpstreamPool() override;
    // An idle connection to `endpoint` (reused = true), or a new one being connected.
    TcpStream *take(const UpstreamEndpoint &endpoint, bool *reused);
    void giveBack(const UpstreamEndpoint &endpoint, TcpStream *socket);
    void clear();
    int maxIdlePerEndpoint = 64;

private:
    void drop(TcpStream *socket);
    void streamReadyRead(TcpStream *socket) override { drop(socket); }
    void streamDisconnected(TcpStream *socket) override { drop(socket); }
    using Key = std::pair<QString, quint16>; // no string built per request
    static Key keyOf(const UpstreamEndpoint &e) { return {e.host, e.port}; }
    QHash<Key, QList<TcpStream *>> m_idle;
};

// What an exchange tells its owner, called directly (no signal connections per request). Calls come
// from the socket's events, and from read() and setReading() (readyRead, finished). A receiver
// deletes the exchange with deleteLater(), never at once.
class UpstreamListener
{
public:
    virtual void upstreamHead() { } // the answer's head (status, headers) is in
    virtual void upstreamReadyRead() { } // more of the body can be read
    virtual void upstreamFinished() { } // the whole answer body arrived
    virtual void upstreamUpgraded() { } // 101 Switching Protocols
    virtual void upstreamFailed(const QString &why) = 0; // no (complete) answer; the exchange is over
    virtual void upstreamBodyWritten() { } // request body bytes left for the socket

protected:
    ~UpstreamListener() = default;
};

// Not a QObject: one is made for every proxied request, and its owner (which it calls back
// through UpstreamListener) holds it by value or unique_ptr.
class UpstreamExchange final : private TcpStreamListener
{
public:
    enum class Body { None, Length, Chunked };

    UpstreamExchange(UpstreamPool *pool, UpstreamEndpoint endpoint, UpstreamListener *listener);
    // Abandons an exchange still running: its connection is closed, never pooled.
    ~UpstreamExchange();
    UpstreamExchange(const UpstreamExchange &) = delete;
    UpstreamExchange &operator=(const UpstreamExchange &) = delete;

    // Sends the head; then writeBody()/finishBody() unless `body` is None. `headers` must not hold
    // framing headers (the exchange writes Content-Length or Transfer-Encoding itself).
    void start(
        const QByteArray &method, const QByteArray &target, const HeaderFields &headers, Body body, qint64 length = 0);
    void writeBody(QByteArrayView data);
    void finishBody();
    qint64 bytesToWrite() const;

    int status() const { return m_status; }
    // The answer's headers (names as the sandbox wrote them, values trimmed, invalid ones left
    // out), views of bytes the exchange keeps until it goes.
    const HeaderFields &headers() const { return m_fields; }
    qint64 contentLength() const { return m_contentLength; } // -1: none given (chunked or until close)
    // The answer body parsed so far; taking it lets more be read (setReading(false) stops reading).
    QByteArray read();
    qint64 bytesAvailable() const { return m_body.size(); }
    void setReading(bool on);
    bool isFinished() const { return m_finished; }

    // After upgraded(): the connection and the bytes that followed the 101 head. The caller owns it.
    TcpStream *takeSocket(QByteArray *rest);

    static constexpr qint64 ReadAheadBytes = 256 * 1024;

private:
    static int onHeaderField(llhttp_t *p, const char *at, size_t len);
    static int onHeaderValue(llhttp_t *p, const char *at, size_t len);
    static int onHeadersComplete(llhttp_t *p);
    static int onBody(llhttp_t *p, const char *at, size_t len);
    static int onMessageComplete(llhttp_t *p);

    void connectSocket(bool reused);
    void streamReadyRead(TcpStream *) override { process(); }
    void streamDisconnected(TcpStream *) override { onDisconnected(); }
    void streamBytesWritten(TcpStream *) override;
    void onDisconnected();
    void process();
    void parseAvailable();
    void fail(const QString &why);
    void complete();
    void sendRaw(const QByteArray &bytes);
    void appendHeadBytes(const char *data, qsizetype size);

    UpstreamPool *m_pool;
    UpstreamEndpoint m_endpoint;
    UpstreamListener *m_listener;
    QPointer<TcpStream> m_socket;
    bool m_reused = false;
    bool m_retried = false;
    QByteArray m_method;
    QByteArray m_head; // kept for one retry on a stale pooled connection
    Body m_bodyKind = Body::None;
    bool m_bodySent = false; // any request body byte went out
    bool m_bodyDone = false;

    llhttp_settings_t m_settings {}; // the parser points to it: neither moves
    llhttp_t m_parser {};
    QByteArray m_in; // read from the socket, not parsed yet (paused)
    bool m_anyResponse = false;
    bool m_headersDone = false;
    bool m_inValue = false;
    int m_status = 0;
    struct Span
    {
        qsizetype nameAt, nameLength, valueAt, valueLength;
    };
    QByteArray m_headBytes; // the answer head's names and values as they came, one after another
    qsizetype m_headLength = 0; // of m_headBytes, which is sized ahead
    QVarLengthArray<Span, 32> m_spans;
    HeaderFields m_fields;
    qint64 m_contentLength = -1;
    QByteArray m_body;
    qsizetype m_bodyTail = -1; // onBody: the body is m_in from here to its end
    bool m_reading = true;
    bool m_headAnnounced = false; // headReceived() emitted
    bool m_messageDone = false; // the parser saw the answer's end; complete() follows
    bool m_processing = false;
    bool m_processAgain = false;
    bool m_finished = false;
    bool m_failed = false;
    bool m_upgraded = false;
    bool m_keepAlive = false;
};

// A request of the doorman's own whose whole answer is wanted at once (a terminal's shell session
// made or ended): the body is collected, then `done` runs once and the call deletes itself.
struct UpstreamAnswer
{
    int status = 0;
    QByteArray body;
};

class UpstreamCall final : public QObject, private UpstreamListener
{
    Q_OBJECT
public:
    using Done = std::function<void(Result<UpstreamAnswer>)>;
    static void start(UpstreamPool *pool, const UpstreamEndpoint &endpoint, const QByteArray &method,
        const QByteArray &target, const HttpHeaders &headers, const QByteArray &body, Done done,
        QObject *parent = nullptr);

private:
    UpstreamCall(UpstreamPool *pool, const UpstreamEndpoint &endpoint, Done done, QObject *parent);
    void upstreamReadyRead() override;
    void upstreamFinished() override;
    void upstreamFailed(const QString &why) override;
    void end(Result<UpstreamAnswer> result);

    std::unique_ptr<UpstreamExchange> m_up;
    Done m_done;
    QByteArray m_body;
    bool m_ended = false;
};

} // namespace isolation
