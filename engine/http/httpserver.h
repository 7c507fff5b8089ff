// A small HTTP/1.1 server over any stream socket (TCP or unix): parses with HttpRequestParser,
// routes by method and path pattern, answers in order, keeps connections alive. Routes reply
// through an HttpReply handle, now or later, whole or streamed in chunks.
#pragma once

#include "core/result.h"
#include "httpbodysink.h"
#include "httprequest.h"
#include "httprequestparser.h"

#include <QElapsedTimer>
#include <QHash>
#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

class QIODevice;
class QLocalServer;
class QTcpServer;

namespace isolation {

class HttpConnection;

// Answers one request. Copyable; answering after the peer went away does nothing.
class HttpReply
{
public:
    HttpReply() = default;

    void send(HttpResponse response) const;
    // Streaming: the head once (chunked transfer coding), then any number of chunks, then finish().
    void sendHead(int status, HttpHeaders headers) const;
    // The same under Content-Length instead: write() exactly `contentLength` bytes in all, then
    // finish() (fewer closes the connection). No body goes out for HEAD, 1xx, 204 and 304.
    void sendHead(int status, HttpHeaders headers, qint64 contentLength) const;
    // The same from views, written out before this returns (a proxy passing an answer on);
    // `contentLength` -1: chunked.
    void sendHead(int status, const HeaderFields &headers, qint64 contentLength) const;
    void write(const QByteArray &chunk) const;
    void finish() const;
    // Flow control for streamed answers: what the socket still holds, and a function run (on the
    // event loop) each time some of it left while less than `lowWater` remains queued. Replaced by
    // the next call; dropped when the answer is complete.
    qint64 bytesToWrite() const;
    void setDrainHandler(std::function<void()> handler, qint64 lowWater = 256 * 1024) const;
    // Answers with `size` bytes read from `body` (open for reading) under Content-Length, a piece
    // at a time as the peer takes them, so a large file never sits in memory. Takes `body`. A body
    // that ends early closes the connection (the peer sees a short answer, never a wrong one).
    void sendDevice(int status, HttpHeaders headers, std::unique_ptr<QIODevice> body, qint64 size) const;
    bool connected() const;
    // Closes the connection at once, dropping what is still queued: a streamed answer's peer that
    // fell too far behind (reading nothing) must not hold the engine's memory.
    void close() const;

private:
    friend class HttpConnection;
    HttpReply(HttpConnection *connection, quint64 sequence);
    QPointer<HttpConnection> m_connection;
    quint64 m_sequence = 0;
};

class HttpServer : public QObject
{
    Q_OBJECT
public:
    using Handler = std::function<void(const HttpRequest &, HttpReply)>;
    // Runs once the head of a request to a streaming route is in, before any byte of its body
    // (request.body is empty, request.params filled). Returns the sink for the body, or the answer
    // to give instead, which is sent once the body has been read and dropped.
    using StreamHandler = std::function<Result<std::unique_ptr<HttpBodySink>, HttpResponse>(const HttpRequest &)>;
    // Takes over a connection whose request asked to upgrade (e.g. WebSocket). `head` holds the
    // bytes of the request as received, `rest` what followed it. Return false to refuse (the
    // server then answers 400 and closes).
    using UpgradeHandler
        = std::function<bool(const HttpRequest &, QIODevice *device, const QByteArray &head, const QByteArray &rest)>;

    explicit HttpServer(QObject *parent = nullptr);
    ~HttpServer() override;

    // Header and body sizes, deadlines and connection caps (HttpLimits). Connections accepted
    // before the call keep their parser's sizes; deadlines and caps apply to all at once.
    void setLimits(HttpRequestParser::Limits limits) { m_limits = limits; }
    HttpRequestParser::Limits limits() const { return m_limits; }

    // Patterns are paths whose segments may be "{name}" (one segment, into request.params) or,
    // last, "{*name}" (the rest of the path). The first matching route wins; a path that matches
    // with another method answers 405.
    void route(const QByteArray &method, const QString &pattern, Handler handler);
    // A route whose request bodies are streamed to an HttpBodySink instead of buffered (no body
    // limit; large uploads). Matched like route(), by exact method.
    void streamRoute(const QByteArray &method, const QString &pattern, StreamHandler handler);
    void setFallback(Handler handler) { m_fallback = std::move(handler); }
    // Every request goes to this streaming handler, whatever its method and path (routes are not
    // consulted): a proxy's one front door.
    void streamEverything(StreamHandler handler) { m_streamAll = std::move(handler); }
    void setUpgradeHandler(UpgradeHandler handler) { m_upgrade = std::move(handler); }
    // Sees every request head first (before routes, stream routes and streamEverything; not
    // upgrades, whose handler decides): an answer returned here is sent instead, once the body
    // has been read and dropped. A server's own admission rules (the local hub's Host check)
    // plug in here, so no route can be reached around them.
    using Gate = std::function<std::optional<HttpResponse>(const HttpRequest &)>;
    void setGate(Gate gate) { m_gate = std::move(gate); }

    // Listens on TCP; returns the bound port (pass 0 to let the system choose).
    Result<quint16> listenTcp(const QHostAddress &address, quint16 port);
    // Connections accepted from now on are TcpStreams (the data plane's socket) instead of
    // QTcpSockets. Upgrade handlers then get a TcpStream; one that needs a QTcpSocket (such as
    // QWebSocketServer::handleConnection) wants the default.
    void setStreamSockets(bool on) { m_streamSockets = on; }
    // Listens on a unix socket, which must not exist. The socket file gets mode 0600.
    Status listenLocal(const QString &path);
    // Serves an already connected socket; the server takes ownership. Counted against the
    // connection caps like an accepted one (and refused the same way).
    void serve(QIODevice *device, const QHostAddress &peer = {});

    // Stops listening and closes every connection.
    void close();
    int connectionCount() const { return int(m_connections.size()); }

    // Since the start: connections refused at a cap, closed to make room for a newer one, and
    // closed for a missed deadline (slow head, idle, stalled body).
    struct Counters
    {
        qint64 refused = 0;
        qint64 evicted = 0;
        qint64 timedOut = 0;
    };
    Counters counters() const { return m_counters; }

private:
    friend class HttpConnection;
    void dispatch(HttpRequest &request, HttpReply reply);
    // The stream route for this request head (params filled in), or nullopt when it has none.
    std::optional<Result<std::unique_ptr<HttpBodySink>, HttpResponse>> openStream(HttpRequest &head);
    bool upgrade(const HttpRequest &request, QIODevice *device, const QByteArray &head, const QByteArray &rest);
    void forget(HttpConnection *connection);
    // Whether a connection from `peer` may open: true when under the caps, or once the oldest
    // connection that waits for a request was closed to make room.
    bool makeRoom(const QHostAddress &peer);
    void refuse(QIODevice *device);
    void uncount(HttpConnection *connection);
    // Once a second while there are connections: each checks its deadline against m_now.
    void sweep();
    // Coarse monotonic milliseconds: set at each accept and each sweep, so that a connection
    // stamps its phases without reading a clock (the data plane's per-request cost stays flat).
    qint64 now() const { return m_now; }

    struct Route
    {
        QByteArray method;
        QStringList segments;
        Handler handler;
        StreamHandler stream;
    };
    static bool matches(const Route &route, const QStringList &parts, QHash<QString, QString> *params);
    QList<Route> m_routes;
    Handler m_fallback;
    UpgradeHandler m_upgrade;
    Gate m_gate;
    StreamHandler m_streamAll;
    HttpRequestParser::Limits m_limits;
    QList<QTcpServer *> m_tcp;
    QList<QLocalServer *> m_local;
    QList<HttpConnection *> m_connections; // oldest first
    QHash<QHostAddress, int> m_perPeer; // counted connections by peer address
    int m_counted = 0;
    QElapsedTimer m_clock;
    qint64 m_now = 0;
    QTimer m_sweep;
    Counters m_counters;
    Counters m_logged; // as of the last log line about them
    bool m_streamSockets = false;
};

} // namespace isolation
