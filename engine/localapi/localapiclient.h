// Client of an engine's LocalAPI, for the CLI and the tray: blocking calls, one HTTP/1.1 request
// per connection to the unix socket, the answer read by llhttp (http/httpresponseparser.h). Plain
// POSIX sockets, not libcurl: Debian's libcurl brings GnuTLS, Kerberos and LDAP, ~5.7 MiB in a
// process that only ever talks to a local socket. Blocks: not for the GUI thread (the tray's
// EngineClient calls it on threads of its own). The event stream (GET /v1/events) has its own
// client on the event loop: EventFollower.
#pragma once

#include "core/result.h"
#include "http/httpmessage.h"

#include <QJsonObject>
#include <QString>

namespace isolation {

struct LocalApiError
{
    enum class Code {
        NotRunning, // no engine listens on the socket
        Stopped, // the engine went away during the request, before it answered
        Transport, // the connection broke or timed out
        Api, // the engine answered with an error body
    };
    Code code = Code::Transport;
    int status = 0; // the HTTP status for Api errors
    QString errorCode; // the error body's code for Api errors
    QString message;
    QJsonObject body; // the whole error body for Api errors (may carry details)
};

class LocalApiClient
{
public:
    // `timeoutMs` bounds a whole call (connect, request, answer); 0 waits as long as it takes.
    // `userAgent` tells the engine which door asked (its activity log: the tray, or the CLI).
    explicit LocalApiClient(QString socketPath, int timeoutMs = 30000, QByteArray userAgent = CliAgent);
    static constexpr const char *CliAgent = "isolation-cli";
    static constexpr const char *TrayAgent = "isolation-tray";

    // Sends a request; a 2xx answer with a JSON object body (or no body) is success.
    Result<QJsonObject, LocalApiError> call(
        const QByteArray &method, const QString &path, const QJsonObject &body = {}) const;
    // Any answer, raw.
    Result<HttpResponse, LocalApiError> request(const QByteArray &method, const QString &path,
        const QByteArray &body = {}, const QByteArray &contentType = "application/json") const;
    QString socketPath() const { return m_socket; }

private:
    QString m_socket;
    int m_timeoutMs;
    QByteArray m_userAgent;
};

} // namespace isolation
