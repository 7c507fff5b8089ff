// The OFFLINE STAND-IN for OpenSandbox's execd (not execd): the daemon in every stand-in
// sandbox, serving the subset of execd-api.yaml the engine uses — /ping, /command (SSE output;
// DELETE interrupts one by id), /session/* (bash sessions), /files/upload, /files/download,
// /directories/list — and /proxy/{port}/... for HTTP and WebSocket. With EXECD_ACCESS_TOKEN in its
// environment every request must carry it in X-EXECD-ACCESS-TOKEN (401 otherwise); like the real
// execd, the processes it starts inherit it.
#pragma once

#include "http/httpserver.h"
#include "standinshell.h"

#include <QHash>
#include <QJsonObject>
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
    // Requires `token` on every request (empty: none).
    void setAccessToken(const QByteArray &token) { m_token = token; }

private:
    void command(const HttpRequest &request, HttpReply reply);
    void interrupt(const HttpRequest &request, HttpReply reply);
    void status(const HttpRequest &request, HttpReply reply);
    void upload(const HttpRequest &request, HttpReply reply);
    void download(const HttpRequest &request, HttpReply reply);
    void proxy(const HttpRequest &request, HttpReply reply);
    bool proxyUpgrade(const HttpRequest &request, QIODevice *device, const QByteArray &rest);
    void listDirectory(const HttpRequest &request, HttpReply reply);
    bool authorised(const HttpRequest &request) const;
    // Wraps a route: the access token checked first.
    HttpServer::Handler guarded(std::function<void(const HttpRequest &, HttpReply)> handler);

    HttpServer m_http;
    QNetworkAccessManager *m_network;
    StandinShell *m_shell;
    QByteArray m_token;
    int m_commands = 0;
    QHash<QString, QPointer<QProcess>> m_running; // command id -> its shell, while it runs
    QHash<QString, QJsonObject> m_status; // command id -> its CommandStatusResponse (the last 256)
    QStringList m_statusOrder;
};

} // namespace isolation::standin
