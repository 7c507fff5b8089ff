// One HTTP/2 stream of the tunnel: a request and its response, each a head and a body that
// flows in chunks with real flow control. A server-side stream receives the request and sends
// the response; a client-side stream (the hub's) the other way round.
#pragma once

#include "http/httprequest.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>


namespace isolation {

class Http2Session;

// A request or response head. Requests use the pseudo-header fields, responses `status`.
// Header names are lower case (HTTP/2); connection-specific headers are never carried.
struct TunnelHead
{
    QByteArray method;
    QByteArray scheme;
    QByteArray authority;
    QByteArray path;
    QByteArray protocol; // extended CONNECT (RFC 8441), e.g. "websocket"; empty otherwise
    int status = 0;
    HttpHeaders headers;

    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }
};

class TunnelStream;

// A receiver the stream calls directly, before each of its signals: for the view relays, which
// serve one request per stream and would otherwise connect and disconnect several signals for
// each. It must not delete the stream from these calls (deleteLater() is fine).
class TunnelStreamListener
{
public:
    virtual void streamHeadReceived(TunnelStream *) { }
    virtual void streamReadyRead(TunnelStream *) { }
    virtual void streamRemoteFinished(TunnelStream *) { }
    virtual void streamBytesWritten(TunnelStream *) { }
    virtual void streamClosed(TunnelStream *, quint32 /*errorCode*/) { }

protected:
    ~TunnelStreamListener() = default;
};

class TunnelStream final : public QObject
{
    Q_OBJECT
public:
    // HTTP/2 error codes a stream may close with (RFC 9113 section 7).
    static constexpr quint32 NoError = 0x0;
    static constexpr quint32 InternalError = 0x2;
    static constexpr quint32 RefusedStream = 0x7;
    static constexpr quint32 Cancel = 0x8;

    ~TunnelStream() override;

    qint32 id() const { return m_id; }
    // Server side: the request received. Client side: the request sent.
    const TunnelHead &requestHead() const { return m_request; }
    // Client side: the response received (valid once headReceived()). Server side: the status
    // sent (the headers went straight to the session).
    const TunnelHead &responseHead() const { return m_response; }
    bool hasResponseHead() const { return m_response.status != 0; }

    // --- the body the peer sends (request body on the server, response body on the client) ---
    qint64 bytesAvailable() const { return m_inSize; }
    // Takes up to `maxSize` buffered bytes (all with -1). Only what is taken is returned to the
    // peer's flow-control window, so a consumer that reads slowly slows the sender down.
    QByteArray read(qint64 maxSize = -1);
    bool remoteFinished() const { return m_remoteFinished; }
    // The peer finished its body and every byte of it has been read.
    bool atEnd() const { return m_remoteFinished && m_inSize == 0; }

    // --- the body this side sends ---
    // Server side only: sends the response head (names are written in lower case, connection-
    // specific headers left out). With `endStream` there is no body.
    bool respond(int status, const HttpHeaders &headers = {}, bool endStream = false);
    // The same from views (a proxy passing an answer head on).
    bool respondFields(int status, const HeaderFields &headers, bool endStream = false);
    // Queues body bytes; they leave as the peer's window allows. Returns false when the stream
    // can no longer send (finished, reset or closed). Writers bound their own memory by waiting
    // for bytesWritten() while bytesToWrite() is above what they want buffered.
    bool write(const QByteArray &data);
    qint64 bytesToWrite() const { return m_outSize; }
    // Ends the body once the queued bytes have left.
    void finish();
    bool localFinished() const { return m_localFinished; }
    // Head, whole body and end of stream at once (server side).
    void respondWith(int status, const HttpHeaders &headers, const QByteArray &body);
    // Abandons the stream (RST_STREAM); unread input is discarded.
    void reset(quint32 errorCode = Cancel);

    bool isClosed() const { return m_closed; }
    quint32 closeErrorCode() const { return m_closeError; }

    // One listener at a time (nullptr: none).
    void setListener(TunnelStreamListener *listener) { m_listener = listener; }

Q_SIGNALS:
    void headReceived(); // client side: the final response head arrived
    void readyRead(); // more of the peer's body is buffered
    void remoteFinishedReceived(); // the peer ended its body (END_STREAM)
    // Queued bytes left for the peer; there is room again. Always emitted from the event loop.
    void bytesWritten(qint64 bytes);
    // The stream is over: `errorCode` 0 when both sides completed, else the HTTP/2 error code
    // (e.g. Cancel when the connection went away). Unread input stays readable after a clean close.
    void closed(quint32 errorCode);

private:
    friend class Http2Session;
    TunnelStream(Http2Session *session, qint32 id, QObject *parent);

    // Called by the session.
    void receiveData(const char *data, size_t size);
    void receiveEnd();
    qint64 takeOutput(char *buffer, qint64 size, bool *eof);
    void close(quint32 errorCode);
    void notifyWritten();
    void announceHead();
    void announceRemoteFinished();
    bool deferred() const { return m_deferred; }

    // Pieces in arrival order. A std::deque allocates its map and a first block even empty, for
    // each of a stream's two directions; this allocates nothing until a piece comes.
    class Pieces
    {
    public:
        bool empty() const { return m_head == m_pieces.size(); }
        const QByteArray &front() const { return m_pieces.at(m_head); }
        void pop_front()
        {
            m_pieces[m_head++] = QByteArray();
            if (m_head == m_pieces.size())
                clear();
        }
        void push_back(const QByteArray &piece) { m_pieces.append(piece); }
        void emplace_back(const char *data, qsizetype size) { m_pieces.append(QByteArray(data, size)); }
        void clear()
        {
            m_pieces.clear();
            m_head = 0;
        }

    private:
        QList<QByteArray> m_pieces;
        qsizetype m_head = 0;
    };

    QPointer<Http2Session> m_session;
    TunnelStreamListener *m_listener = nullptr;
    qint32 m_id = 0;
    TunnelHead m_request;
    TunnelHead m_response;
    TunnelHead m_partial; // a head being received

    Pieces m_in;
    qint64 m_inSize = 0;
    qint64 m_inOffset = 0; // read position in m_in.front()
    bool m_remoteFinished = false;

    Pieces m_out;
    qint64 m_outSize = 0;
    qint64 m_outOffset = 0;
    qint64 m_written = 0; // taken by nghttp2 since the last bytesWritten()
    bool m_writtenPending = false; // a bytesWritten() is queued
    bool m_wroteNoted = false; // in the session's list of streams written during this flush
    bool m_hasProvider = false; // a data provider is attached (body may follow)
    bool m_bodyAllowed = true; // false once the head said there is no body
    bool m_deferred = false;
    bool m_localFinished = false;

    bool m_closed = false;
    quint32 m_closeError = 0;
};

} // namespace isolation
