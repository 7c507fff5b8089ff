// An HTTP/1.1 request parser: Node's llhttp underneath, plus the stricter rules every
// front door here applies (one Content-Length, no Content-Length with Transfer-Encoding, only
// the chunked coding, no obs-fold, no control bytes in values, one Host) and size limits.
#pragma once

#include "httprequest.h"

#include <llhttp.h>

#include <functional>

namespace isolation {

struct HttpLimits
{
    qsizetype maxHeaderBytes = 64 * 1024; // request line + headers; more is 431
    int maxHeaderCount = 100; // more is 431
    qint64 maxBodyBytes = 16 * 1024 * 1024; // more is 413
    // Whether HttpRequest::path and ::query are filled (QUrl, strict). Routes need them; a proxy
    // that takes the target as it came and checks it itself (the doorman's ViewPath) does not.
    bool decodeTarget = true;

    // What HttpServer applies to each connection (the parser ignores these). A limit of 0 is off.
    // The time a connection has to deliver a complete request head: from its accept for the
    // first request, from the first byte for the next ones. Over it: 408 and the connection closed.
    int headTimeoutMs = 10 * 1000;
    // The time a kept-alive connection may wait for its next request, and a request body may go
    // without a byte (while the route takes it as it comes). Over it: closed (408 mid-body).
    int idleTimeoutMs = 60 * 1000;
    // Open connections per peer address (all unix-socket peers are one peer: the socket is private
    // to its user) and in all. A connection over either cap first makes room by closing the
    // oldest connection that waits for a request (a slow head, an idle keep-alive); when every
    // connection is inside a request the new one is refused (503, closed).
    int maxConnectionsPerPeer = 64;
    int maxConnections = 1024;
};

class HttpRequestParser
{
public:
    using Limits = HttpLimits;

    enum class State {
        NeedMore, // feed more bytes
        Complete, // a request is ready: takeRequest()
        Upgrade, // a request asked to switch protocols; bytes after it belong to the new protocol
        Error, // errorStatus()/errorMessage() say why; the connection must be closed
    };

    explicit HttpRequestParser(Limits limits = Limits());
    HttpRequestParser(const HttpRequestParser &) = delete;
    HttpRequestParser &operator=(const HttpRequestParser &) = delete;

    // Feeds bytes and stops at the end of one request. Returns the number of bytes consumed;
    // the rest must be fed again after takeRequest().
    qsizetype feed(const char *data, qsizetype size);
    // Tells the parser the peer closed its side (a body delimited by close is then complete).
    void finish();

    State state() const { return m_state; }
    HttpRequest takeRequest();
    bool keepAlive() const { return m_keepAlive; }
    // From the head on (onHeaders sees it): the request asks to switch protocols (Upgrade with
    // Connection: upgrade, or CONNECT); no body follows, the connection changes hands.
    bool upgrading() const { return m_parser.upgrade != 0; }
    int errorStatus() const { return m_errorStatus; }
    QString errorMessage() const { return m_errorMessage; }

    // Called once the headers of a request are in, before its body (for "Expect: 100-continue"
    // and to choose a body sink).
    std::function<void(const HttpRequest &)> onHeaders;

    // For the current request only, set from onHeaders: its body goes to `sink` piece by piece
    // instead of into HttpRequest::body, and maxBodyBytes does not apply. The sink returning false
    // fails the request with 413.
    void setBodySink(std::function<bool(QByteArrayView)> sink) { m_bodySink = std::move(sink); }

private:
    static int onMessageBegin(llhttp_t *p);
    static int onUrl(llhttp_t *p, const char *at, size_t len);
    static int onHeaderField(llhttp_t *p, const char *at, size_t len);
    static int onHeaderValue(llhttp_t *p, const char *at, size_t len);
    static int onHeadersComplete(llhttp_t *p);
    static int onBody(llhttp_t *p, const char *at, size_t len);
    static int onMessageComplete(llhttp_t *p);

    int fail(int status, const QString &message);
    bool countHeaderBytes(size_t len);
    int validateHeaders();

    Limits m_limits;
    llhttp_settings_t m_settings {}; // the parser points to it: neither moves
    llhttp_t m_parser {};
    State m_state = State::NeedMore;
    HttpRequest m_request;
    std::function<bool(QByteArrayView)> m_bodySink;
    QByteArray m_raw; // the head of the current request as received, to spot obs-fold
    bool m_inValue = false;
    bool m_headersDone = false;
    qsizetype m_headerBytes = 0;
    bool m_keepAlive = true;
    int m_errorStatus = 0;
    QString m_errorMessage;
};

} // namespace isolation
