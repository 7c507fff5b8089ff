// HttpBodySink: where a streamed request body goes, piece by piece, instead of into
// HttpRequest::body (routes added with HttpServer::streamRoute). No size limit applies to it.
#pragma once

#include <QByteArrayView>

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
};

} // namespace isolation
