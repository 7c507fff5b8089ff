// One HTTP/1.1 exchange with a sandbox's execd: the request written by us (head, then a body of
// known length or chunked), the answer parsed with http-parser as it arrives and handed on piece
// by piece, with flow control both ways. Keep-alive connections are pooled per endpoint; a
// WebSocket handshake answered 101 hands its socket over.
#pragma once

#include "http/httpmessage.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <http_parser.h>

#include <memory>

class QTcpSocket;

namespace isolation {

struct UpstreamEndpoint
{
    QString host; // an IP address (execd's endpoint is 127.0.0.1 for the engine)
    quint16 port = 0;
    QString key() const { return host + QLatin1Char(':') + QString::number(port); }
};

// Idle keep-alive connections, per endpoint. A connection that closes or talks while idle is dropped.
class UpstreamPool final : public QObject
{
    Q_OBJECT
public:
    explicit UpstreamPool(QObject *parent = nullptr);
    ~UpstreamPool() override;
    // An idle connection to `endpoint` (reused = true), or a new one being connected.
    QTcpSocket *take(const UpstreamEndpoint &endpoint, bool *reused);
    void giveBack(const UpstreamEndpoint &endpoint, QTcpSocket *socket);
    void clear();
    int idleCount() const;
    int maxIdlePerEndpoint = 64;

private:
    void drop(QTcpSocket *socket);
    QHash<QString, QList<QTcpSocket *>> m_idle;
};

class UpstreamExchange final : public QObject
{
    Q_OBJECT
public:
    enum class Body { None, Length, Chunked };

    UpstreamExchange(UpstreamPool *pool, UpstreamEndpoint endpoint, QObject *parent = nullptr);
    // Abandons an exchange still running: its connection is closed, never pooled.
    ~UpstreamExchange() override;

    // Sends the head; then writeBody()/finishBody() unless `body` is None. `headers` must not hold
    // framing headers (the exchange writes Content-Length or Transfer-Encoding itself).
    void start(
        const QByteArray &method, const QByteArray &target, const HttpHeaders &headers, Body body, qint64 length = 0);
    void writeBody(QByteArrayView data);
    void finishBody();
    qint64 bytesToWrite() const;

    int status() const { return m_status; }
    const HttpHeaders &headers() const { return m_headers; }
    qint64 contentLength() const { return m_contentLength; } // -1: none given (chunked or until close)
    // The answer body parsed so far; taking it lets more be read (setReading(false) stops reading).
    QByteArray read();
    qint64 bytesAvailable() const { return m_body.size(); }
    void setReading(bool on);
    bool isFinished() const { return m_finished; }

    // After upgraded(): the connection and the bytes that followed the 101 head. The caller owns it.
    QTcpSocket *takeSocket(QByteArray *rest);

    static constexpr qint64 ReadAheadBytes = 256 * 1024;

Q_SIGNALS:
    void headReceived();
    void readyRead();
    void finished(); // the whole answer body arrived
    void upgraded(); // 101 Switching Protocols
    void failed(const QString &why); // no (complete) answer; the exchange is over
    void bodyWritten(); // request body bytes left for the socket

private:
    static int onHeaderField(http_parser *p, const char *at, size_t len);
    static int onHeaderValue(http_parser *p, const char *at, size_t len);
    static int onHeadersComplete(http_parser *p);
    static int onBody(http_parser *p, const char *at, size_t len);
    static int onMessageComplete(http_parser *p);

    void connectSocket(bool reused);
    void onReadyRead();
    void onDisconnected();
    void process();
    void fail(const QString &why);
    void complete();
    void sendRaw(const QByteArray &bytes);

    UpstreamPool *m_pool;
    UpstreamEndpoint m_endpoint;
    QPointer<QTcpSocket> m_socket;
    bool m_reused = false;
    bool m_retried = false;
    QByteArray m_method;
    QByteArray m_head; // kept for one retry on a stale pooled connection
    Body m_bodyKind = Body::None;
    bool m_bodySent = false; // any request body byte went out
    bool m_bodyDone = false;

    http_parser m_parser {};
    http_parser_settings m_settings {};
    QByteArray m_in; // read from the socket, not parsed yet (paused)
    bool m_anyResponse = false;
    bool m_headersDone = false;
    bool m_inValue = false;
    int m_status = 0;
    HttpHeaders m_headers;
    qint64 m_contentLength = -1;
    QByteArray m_body;
    bool m_reading = true;
    bool m_finished = false;
    bool m_failed = false;
    bool m_upgraded = false;
    bool m_keepAlive = false;
};

} // namespace isolation
