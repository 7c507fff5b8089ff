// The OFFLINE STAND-IN for OpenSandbox's execd (not execd): the daemon in every stand-in
// sandbox, serving the subset of execd-api.yaml the engine uses — /ping, /command (SSE output;
// DELETE interrupts one by id), /files/upload, /files/download — and /proxy/{port}/... for HTTP
// and WebSocket.
#pragma once

#include "http/httpserver.h"

#include <QHash>
#include <QObject>
#include <QPointer>

class QProcess;

class QNetworkAccessManager;

namespace isolation::standin {

class StandinExecd final : public QObject
{
    Q_OBJECT
public:
    explicit StandinExecd(QObject *parent = nullptr);
    Result<quint16> listen(quint16 port);

private:
    void command(const HttpRequest &request, HttpReply reply);
    void interrupt(const HttpRequest &request, HttpReply reply);
    void upload(const HttpRequest &request, HttpReply reply);
    void download(const HttpRequest &request, HttpReply reply);
    void proxy(const HttpRequest &request, HttpReply reply);
    bool proxyUpgrade(const HttpRequest &request, QIODevice *device, const QByteArray &rest);

    HttpServer m_http;
    QNetworkAccessManager *m_network;
    int m_commands = 0;
    QHash<QString, QPointer<QProcess>> m_running; // command id -> its shell, while it runs
};

} // namespace isolation::standin
