// One blocking HTTP exchange through libcurl (over TCP or a unix socket), for the runtime's
// worker threads: Docker's Engine API and the lifecycle server's health probe. Never on the GUI thread.
#pragma once

#include "core/result.h"
#include "http/httpmessage.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace isolation {

// Why libcurl could not complete an exchange (there was no HTTP answer).
struct CurlFailure
{
    int curlCode = 0; // CURLcode
    int osErrno = 0; // errno of the failed connect, when there was one
    QString message;
    bool idle = false; // no byte moved for CurlRequest::idleTimeoutMs
};

struct CurlRequest
{
    QByteArray method = "GET";
    QByteArray url; // http://host/path?query (the host is ignored over a unix socket)
    QString unixSocket; // empty: TCP
    HttpHeaders headers;
    QByteArray body;
    bool sendBody = false; // send `body` even when empty (POST with no content)
    int timeoutMs = 30000; // the whole exchange; 0: no cap (then set idleTimeoutMs)
    // Above 0: the exchange fails (curlCode CURLE_OPERATION_TIMEDOUT, `idle` set) when no byte
    // moved either way for this long. For long streams whose length no one knows (an image pull).
    int idleTimeoutMs = 0;
    // Set from another thread, it aborts the exchange (within a second or so).
    std::shared_ptr<const std::atomic_bool> cancel;
    // Set: the body is given to it as it arrives (a long stream, e.g. Docker's build output) and
    // the response's body stays empty.
    std::function<void(QByteArrayView)> onBody;

    Result<HttpResponse, CurlFailure> perform() const;
};

} // namespace isolation
