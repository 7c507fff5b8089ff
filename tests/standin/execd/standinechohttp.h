// Stand-in only: a small web application to put behind views in tests (`--echo-http PORT`):
// answers each request with what it received (method, target, headers, body digest) as JSON and
// prints it as a line "ISOLATION-STANDIN-APP {json}", so a test counts and inspects what reached
// the sandbox. /sse streams events; /hostile answers with headers a sandbox must not get through;
// /page serves a page for browser tests; /big?n=BYTES a large body, /bytes?n= a cached one. A
// WebSocket handshake on the same port gets an echo server (QWebSocketServer): "echo: <text>".
#pragma once

#include "http/httpserver.h"

#include <QObject>

class QTcpServer;
class QTcpSocket;
class QWebSocketServer;

namespace isolation::standin {

class StandinEchoHttp final : public QObject
{
    Q_OBJECT
public:
    explicit StandinEchoHttp(QObject *parent = nullptr);
    Result<quint16> listen(quint16 port);

private:
    void answer(const HttpRequest &request, HttpReply reply);
    void route(QTcpSocket *socket);
    HttpServer m_http;
    QTcpServer *m_listener;
    QWebSocketServer *m_ws;
    int m_seen = 0;
};

} // namespace isolation::standin
