// HttpBodySink: where a streamed request body goes, piece by piece, instead of into
// HttpRequest::body (routes added with HttpServer::streamRoute). No size limit applies to it.
#pragma once

#include <QByteArrayView>

#include <functional>

namespace isolation {

struct HttpRequest;
class HttpReply;

class HttpBodySink
{
public:
    virtual ~HttpBodySink() = default;

    // The next piece of the body, in order, as it arrives; the socket is not read while this runs,
    // so a slow sink slows the peer down (TCP flow control) instead of filling memory. Return false
    // to stop taking the body: the rest is read and dropped, and complete() still runs.
    virtual bool write(QByteArrayView piece) = 0;

    // The whole body has arrived (or write() stopped taking it): answer through `reply`, now or
    // later. `request` is the complete request with an empty body. The server destroys the sink
    // right after this returns; a sink destroyed without complete() never got its whole body (the
    // peer went away, the framing was broken) and must throw away what it wrote.
    virtual void complete(const HttpRequest &request, HttpReply reply) = 0;

    // Backpressure for a sink that passes the body on (to a sandbox, a tunnel): true while it
    // holds as much as it wants to of what its consumer has not taken yet. The connection then
    // stops reading the body (the socket's buffer fills and TCP holds the peer back) until the
    // sink calls resumed(); it also looks again about once a second, in case a drain went unseen.
    virtual bool full() const { return false; }

protected:
    // The consumer took enough: the connection reads on (on the next turn of the event loop).
    void resumed()
    {
        if (m_resume)
            m_resume();
    }

private:
    friend class HttpConnection;
    std::function<void()> m_resume;
};

} // namespace isolation
