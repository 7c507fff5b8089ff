// An HTTP/1.1 response parser for the blocking LocalAPI client (localapi/localapiclient.h): Node's
// llhttp reads the status line, the headers and the body (Content-Length, chunked, or up to the
// close), fed as bytes come off the socket. One answer per parser: the client sends
// "Connection: close". Bounded: a head or a body past its limit is an error.
#pragma once

#include "httpmessage.h"

#include <QString>

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

    // `noBody`: the answer to a HEAD request, whose Content-Length describes a body never sent.
    explicit HttpResponseParser(bool noBody = false, qint64 maxBodyBytes = kDefaultMaxBodyBytes);
    HttpResponseParser(const HttpResponseParser &) = delete;
    HttpResponseParser &operator=(const HttpResponseParser &) = delete;

    // Feeds bytes as they come; bytes after the answer are ignored.
    void feed(QByteArrayView bytes);
    // The peer closed the connection: a body delimited by the close is complete now, anything
    // else not yet complete is an error.
    void finish();

    State state() const { return m_state; }
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

    bool m_noBody;
    qint64 m_maxBodyBytes;
    llhttp_settings_t m_settings {}; // the parser points to it: neither moves
    llhttp_t m_parser {};
    State m_state = State::NeedMore;
    HttpResponse m_response;
    qsizetype m_headBytes = 0;
    bool m_inValue = false;
    QString m_error;
};

} // namespace isolation
