// One client connection of HttpServer: feeds the parser, hands complete requests to the server
// one at a time, writes the answers in order. Internal to the http module.
#pragma once

#include "httprequest.h"
#include "httprequestparser.h"

#include <QHostAddress>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

class QIODevice;

namespace isolation {

class HttpBodySink;
class HttpServer;
class TcpStream;

class HttpConnection final : public QObject
{
    Q_OBJECT
public:
    HttpConnection(QIODevice *device, const QHostAddress &peer, HttpServer *server);
    ~HttpConnection() override;

    void sendResponse(quint64 sequence, HttpResponse response);
    // Without `length` the body is chunked; with it, sent as is under Content-Length.
    void sendHead(quint64 sequence, int status, HttpHeaders headers, std::optional<qint64> length = std::nullopt);
    void sendHead(quint64 sequence, int status, const HeaderFields &headers, std::optional<qint64> length);
    qint64 bytesToWrite() const;
    void setDrainHandler(quint64 sequence, std::function<void()> handler, qint64 lowWater);
    void writeChunk(quint64 sequence, const QByteArray &chunk);
    void finishChunks(quint64 sequence);
    void sendDevice(quint64 sequence, int status, HttpHeaders headers, std::unique_ptr<QIODevice> body, qint64 size);
    bool isCurrent(quint64 sequence) const { return m_busy && sequence == m_sequence; }
    void closeNow();

    // Connection limits (HttpLimits), for the server.
    const QHostAddress &peer() const { return m_peer; }
    // Waits for a request: its head has not come whole yet, or it is kept alive between requests.
    bool waitingForRequest() const { return !m_closing && (m_phase == Phase::Head || m_phase == Phase::Idle); }
    // Closes at once to make room for a newer connection (no longer counted from now on).
    void evict();
    // The server's sweep: acts on a missed deadline (408 and close, or close).
    void checkDeadline(qint64 now);

private:
    friend class HttpServer; // m_counted
    // Where the connection is, for its deadline: a head coming (HttpLimits::headTimeoutMs), kept
    // alive between requests or a body coming (idleTimeoutMs), or inside a route (none).
    enum class Phase : quint8 { Head, Idle, Body, Busy };
    void enter(Phase phase);
    // Moves what the device holds into m_in, up to kReadBufferBytes: beyond that the device's
    // own buffer fills, it stops reading, and TCP holds the peer back.
    void pull();
    void resumeSink();
    void onReadyRead();
    void onPeerClosed();
    void process();
    void scheduleProcess();
    void answerError(int status, const QString &message);
    template<typename Headers>
    void startStreaming(int status, const Headers &headers, std::optional<qint64> length);
    void completeExchange();
    void closeGracefully();
    void onHead(const HttpRequest &head);
    bool takeBody(QByteArrayView piece);
    void completeStream(HttpRequest request);
    void pumpBody();

    QIODevice *m_device;
    TcpStream *m_stream = nullptr; // m_device, when it is one
    QHostAddress m_peer;
    HttpServer *m_server;
    HttpRequestParser m_parser;
    QByteArray m_in;
    QByteArray m_head; // bytes of the current request so far, for upgrades
    quint64 m_sequence = 0;
    bool m_busy = false;
    bool m_streaming = false;
    bool m_keepAlive = true;
    bool m_headRequest = false;
    bool m_closing = false;
    bool m_processScheduled = false;
    bool m_halfClosed = false; // closing: our side of the stream is shut (FIN sent)
    bool m_counted = true; // against the server's connection caps
    Phase m_phase = Phase::Head;
    qint64 m_since = 0; // the server's now() when the phase began (or, for a body, last moved)

    // A streamed request body (HttpServer::streamRoute): its sink, or the answer that refused it.
    bool m_streamed = false;
    std::unique_ptr<HttpBodySink> m_sink;
    bool m_sinkStopped = false;
    bool m_sinkPaused = false; // the sink is full(): the body waits in the socket
    bool m_writeBlocked = false; // answers queued past kWriteHighWater: the next request waits
    std::optional<HttpResponse> m_refusal;
    HttpRequest m_streamHead;
    qint64 m_dropped = 0;
    bool m_dropLimitHit = false;

    // A streamed answer under Content-Length (sendHead with a length): bytes still to come, and
    // whether any body goes out at all (not for HEAD, 204, 304).
    bool m_sized = false;
    bool m_chunkBody = true; // a chunked answer has a body (not for HEAD, 204, 304)
    qint64 m_sizedLeft = 0;
    bool m_sizedBody = true;
    std::function<void()> m_drained;
    qint64 m_drainLowWater = 0;

    // An answer body read from a device as the peer takes it (sendDevice).
    std::unique_ptr<QIODevice> m_body;
    qint64 m_bodyLeft = 0;
};

} // namespace isolation
