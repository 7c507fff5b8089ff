// The doorman's local front door: HTTP/1.1 on 127.0.0.1 (8090), one host name per view
// ("<viewId>.localhost:8090"), parsed by HttpServer's strict parser (llhttp underneath).
// Ambiguous requests never get past it: 400 and the connection closed.
#pragma once

#include "http/httpserver.h"
#include "viewexchange.h"

#include <QObject>

namespace isolation {

class Doorman;
struct DoorRequest;

class HttpDoor final : public QObject
{
    Q_OBJECT
public:
    HttpDoor(Doorman *doorman, QObject *parent = nullptr);
    Result<quint16> listen(const QHostAddress &address, quint16 port);
    void close();
    HttpServer &server() { return m_server; }

    // Header limits: 16 KiB and 64 fields (more is 431).
    static HttpLimits limits();
    // A parsed request as this door hands it to the rules (the fuzz target uses it too).
    static DoorRequest doorRequest(const Doorman &doorman, const HttpRequest &request);

private:
    Result<std::unique_ptr<HttpBodySink>, HttpResponse> open(const HttpRequest &head);
    bool upgrade(const HttpRequest &request, QIODevice *device, const QByteArray &rest);

    Doorman *m_doorman;
    ViewExchanges m_exchanges; // before m_server: its body sinks retire exchanges as they go
    HttpServer m_server;
};

} // namespace isolation
