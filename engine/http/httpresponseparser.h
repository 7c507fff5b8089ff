// The HTTP/1.1 response parser of the engine's clients: Node's llhttp reads the status line, the
// headers and the body (Content-Length, chunked, or up to the close), fed as bytes come off the
// socket. One answer per parser. Used whole by the blocking LocalAPI client
// (localapi/localapiclient.h), streaming by the event stream's reader (localapi/sseparser.h: the
// body goes to a sink as it comes), and up to the head by the WebSocket handshake
// (websocket/websockethandshake.h: a 101 hands over the bytes after it). The doorman's upstream
// reader (doorman/upstreamexchange.h) keeps its own llhttp settings: its answers' heads and bodies
// are views of the bytes read, never copied (docs/architecture.md, "The data plane").
// Bounded: a head or a body past its limit is an error.
#pragma once

#include "httpmessage.h"

#include <QString>

#include <functional>

#include <llhttp.h>

namespace isolation {

class HttpResponseParser
{
public:
    static constexpr qsizetype kMaxHeadBytes = 64 * 1024;
    static constexpr int kMaxHeaderCount = 100;
    // An answer of the LocalAPI is a JSON document; this only keeps a broken peer from filling memory.
    static constexpr qint64 kDefaultMaxBodyBytes = 256 * 1024 * 1024;

    enum class State {
        NeedMore, // feed more bytes, or finish() when the peer closed
        Complete, // the answer is in: response()
        Error, // malformed, cut short, or over a limit: errorMessage() says which
    };

    struct Options
    {
        bool noBody = false; // the answer to a HEAD request, whose Content-Length describes a body never sent
        bool stopAtHead = false; // Complete once the head is in; a body is not read
        bool interimIsError = false; // a 1xx other than 101 is an error, not an answer to skip
        qsizetype maxHeadBytes = kMaxHeadBytes;
        qint64 maxBodyBytes = kDefaultMaxBodyBytes;
    };
    // Called once the final answer's head is in (response() holds status and headers; `chunked`:
    // its body is chunked); a non-empty result is an error that stops the parser.
    using HeadHandler = std::function<QString(const HttpResponse &head, bool chunked)>;
    // Takes the body as it comes (views of the fed bytes, valid during the call) instead of
    // response().body; a non-empty result is an error that stops the parser. Bounded by
    // maxBodyBytes too.
    using BodySink = std::function<QString(QByteArrayView bytes)>;

    explicit HttpResponseParser(Options options);
    explicit HttpResponseParser(bool noBody = false, qint64 maxBodyBytes = kDefaultMaxBodyBytes);
    void setHeadHandler(HeadHandler handler) { m_onHead = std::move(handler); }
    void setBodySink(BodySink sink) { m_bodySink = std::move(sink); }
    HttpResponseParser(const HttpResponseParser &) = delete;
    HttpResponseParser &operator=(const HttpResponseParser &) = delete;

    // Feeds bytes as they come; bytes after the answer are ignored.
    void feed(QByteArrayView bytes);
    // The peer closed the connection: a body delimited by the close is complete now, anything
    // else not yet complete is an error.
    void finish();

    State state() const { return m_state; }
    // Complete with a 101 (the peer switches protocols): rest() holds the bytes after its head.
    bool upgraded() const { return m_upgraded; }
    QByteArray rest() const { return m_rest; }
    // The answer: status 0 until a head has been read.
    const HttpResponse &response() const { return m_response; }
    HttpResponse takeResponse() { return std::move(m_response); }
    QString errorMessage() const { return m_error; }

private:
    static int onStatus(llhttp_t *p, const char *at, size_t len);
    static int onHeaderField(llhttp_t *p, const char *at, size_t len);
    static int onHeaderValue(llhttp_t *p, const char *at, size_t len);
    static int onHeadersComplete(llhttp_t *p);
    static int onBody(llhttp_t *p, const char *at, size_t len);
    static int onMessageComplete(llhttp_t *p);
    bool countHeadBytes(size_t len);
    int fail(const QString &why);

    Options m_options;
    HeadHandler m_onHead;
    BodySink m_bodySink;
    llhttp_settings_t m_settings {}; // the parser points to it: neither moves
    llhttp_t m_parser {};
    State m_state = State::NeedMore;
    HttpResponse m_response;
    qsizetype m_headBytes = 0;
    qint64 m_bodyBytes = 0;
    bool m_inValue = false;
    bool m_upgraded = false;
    QByteArray m_rest;
    QString m_error;
};

} // namespace isolation
