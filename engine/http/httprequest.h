// HTTP/1.1 requests as the engine's servers hand them to a route (server side only: the LocalAPI's
// clients, the tray among them, use httpmessage.h and need no Qt Network).
#pragma once

#include "httpmessage.h"

#include <QHostAddress>
#include <QJsonObject>
#include <QUrlQuery>

namespace isolation {

// A peer's address as X-Forwarded-For has it (an IPv4-mapped address as IPv4). The same few
// peers ask again and again, so the last one's text is kept (one per thread).
QByteArray forwardedFor(const QHostAddress &peer);
struct HttpRequest
{
    QByteArray method;
    QByteArray target; // the request target as sent
    QString path; // percent-decoded path of the target
    QUrlQuery query;
    HttpHeaders headers;
    QByteArray body;
    QHostAddress peer; // empty for unix sockets
    QHash<QString, QString> params; // filled by the router from "{name}" segments

    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }
    // The body parsed as a JSON object; an empty body is an empty object. Returns false on bad JSON,
    // saying so (and, for a body declared as another type, that it must be JSON). A JSON body
    // declared otherwise is taken: `curl -d` says application/x-www-form-urlencoded.
    bool jsonBody(QJsonObject *out, QString *error = nullptr) const;
    // The token of "Authorization: Bearer <token>", or empty.
    QByteArray bearerToken() const;
};

} // namespace isolation
