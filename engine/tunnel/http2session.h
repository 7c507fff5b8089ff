// One HTTP/2 connection over nghttp2, in either role, as bytes in and bytes out: the transport
// (the tunnel's WebSocket) feeds receive() and sends whatever output() emits. Requests and
// responses are TunnelStreams with per-stream flow control (windows open as the reader reads).
#pragma once

#include "core/result.h"
#include "tunnelstream.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <memory>

struct nghttp2_session;

namespace isolation {

class Http2Session final : public QObject
{
    Q_OBJECT
public:
    enum class Role { Client, Server };

    struct Settings
    {
        quint32 maxConcurrentStreams = 1000;
        qint32 streamWindow = 256 * 1024; // SETTINGS_INITIAL_WINDOW_SIZE we announce
        qint32 connectionWindow = 1024 * 1024; // our connection-level receive window
        qint64 maxOutputChunk = qint64(256) * 1024; // largest single output() emission (one WebSocket message)
        // Body bytes written in a write batch beyond this go out at once rather than when the
        // batch ends.
        qint64 eagerOutputBytes = 16 * 1024;
    };

    Http2Session(Role role, Settings settings, QObject *parent = nullptr);
    // Closes every open stream with Cancel before the session goes.
    ~Http2Session() override;

    Role role() const { return m_role; }

    // Queues the connection preface (client) and our SETTINGS, then flushes them out.
    Status start();
    // Feeds bytes from the peer. An error means the connection is broken (a GOAWAY is queued).
    Status receive(QByteArrayView bytes);

    // Client side: opens a stream with a request head. With `endStream` the request has no
    // body; otherwise write() and finish() the body. Fails once the peer sent GOAWAY.
    Result<TunnelStream *> request(const TunnelHead &head, bool endStream);

    // Sends a PING; pingAcknowledged() follows when the peer answers.
    void ping();
    // Graceful shutdown: GOAWAY naming the last stream we accepted; open streams may finish.
    void shutdown();
    // Immediate GOAWAY with an error code; the caller closes the transport.
    void terminate(quint32 errorCode);

    int streamCount() const { return int(m_streams.size()); }
    bool goAwayReceived() const { return m_goAwayReceived; }
    // nghttp2 still wants to read or write; false after both sides sent GOAWAY and streams ended.
    bool isAlive() const;
    // Runs `f` once what the session queued so far has been handed to output(): at once outside a
    // write batch, when the batch ends inside one (the socket's own events run in one, and a last
    // GOAWAY leaves only then, so isAlive() can change only then). One call per batch; later ones
    // before it ends are dropped.
    void whenOutputSent(std::function<void()> f);

Q_SIGNALS:
    void output(const QByteArray &bytes);
    // Server side: a request head arrived (its body may follow).
    void incomingStream(isolation::TunnelStream *stream);
    void pingAcknowledged();
    void goAway(quint32 errorCode);
    // A stream ended (after its closed()); streamCount() is already lower.
    void streamClosed();

private:
    friend class TunnelStream;
    struct Callbacks;

    // Streams call these.
    void resume(TunnelStream *stream, qint64 bytes = 0);
    void submitResponse(TunnelStream *stream, const HeaderFields &headers, bool endStream);
    void consume(TunnelStream *stream, qint64 bytes);
    void consumeConnection(qint64 bytes);
    void resetStream(TunnelStream *stream, quint32 errorCode);
    void forget(TunnelStream *stream);

    void flush();
    void flushSoon();
    TunnelStream *stream(qint32 id) const { return m_streams.value(id); }

    Role m_role;
    Settings m_settings;
    std::unique_ptr<nghttp2_session, void (*)(nghttp2_session *)> m_session;
    QHash<qint32, TunnelStream *> m_streams;
    QList<qint32> m_wrote; // streams nghttp2 took body bytes from during this flush
    QByteArray m_output; // what one flush gathers for output()
    int m_busy = 0; // inside nghttp2 (receive or send): flushing waits
    bool m_flushing = false;
    bool m_flushAgain = false;
    bool m_flushQueued = false;
    bool m_whenSentQueued = false;
    qint64 m_heldBytes = 0; // body bytes streams wrote since the last flush
    bool m_goAwayReceived = false;
    bool m_broken = false;
};

} // namespace isolation
