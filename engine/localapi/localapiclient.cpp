#include "localapiclient.h"

#include "http/httpresponseparser.h"
#include "unixsocket.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>
#include <cerrno>
#include <utility>

#include <poll.h>
#include <unistd.h>

namespace isolation {

namespace {

using unixsocket::errnoText;
using unixsocket::Fd;
using unixsocket::waitFor;

LocalApiError transport(const QString &why)
{
    return LocalApiError {LocalApiError::Code::Transport, 0, {}, QStringLiteral("LocalAPI request failed: %1").arg(why), {}};
}

// The request as the engine's HTTP server reads it; empty when the method or path would not make one.
QByteArray requestBytes(const QByteArray &method, const QString &path, const QByteArray &body,
    const QByteArray &contentType, const QByteArray &userAgent)
{
    const QByteArray target = path.toUtf8();
    if (!isHttpToken(method) || !target.startsWith('/') || hasControlBytes(contentType) || hasControlBytes(userAgent))
        return {};
    for (const char c : target) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
            return {}; // a space or a line break would end the request line early
    }
    QByteArray out;
    out.reserve(160 + target.size() + body.size());
    out += method + ' ' + target + " HTTP/1.1\r\nHost: localhost\r\nUser-Agent: " + userAgent + "\r\n";
    if (!body.isEmpty())
        out += "Content-Type: " + contentType + "\r\n";
    if (!body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH") {
        out += "Content-Length: ";
        appendNumber(out, body.size());
        out += "\r\n";
    }
    out += "Connection: close\r\n\r\n";
    out += body;
    return out;
}

} // namespace

LocalApiClient::LocalApiClient(QString socketPath, int timeoutMs, QByteArray userAgent)
    : m_socket(std::move(socketPath))
    , m_timeoutMs(timeoutMs)
    , m_userAgent(std::move(userAgent))
{ }

namespace {

LocalApiError notRunning(const QString &socket)
{
    return LocalApiError {LocalApiError::Code::NotRunning, 0, {},
        QStringLiteral("no engine is running (no socket at %1); start one with `isolation-server up` or the tray").arg(socket),
        {}};
}

// A connected, non-blocking socket to the engine, or why not.
Result<Fd, LocalApiError> connectTo(const QString &socketPath, const QDeadlineTimer &deadline, int timeoutMs)
{
    int error = 0;
    Fd socket = unixsocket::connectTo(socketPath, deadline, &error);
    if (socket.valid())
        return socket;
    if (error == ENAMETOOLONG)
        return transport(QStringLiteral("the socket path is too long: %1").arg(socketPath));
    if (error == ENOENT)
        return notRunning(socketPath); // gone between the check and the connect
    if (error == ECONNREFUSED)
        return LocalApiError {LocalApiError::Code::NotRunning, 0, {},
            QStringLiteral("no engine answers on %1 (stale socket?); start one with "
                           "`isolation-server up` or the tray")
                .arg(socketPath),
            {}};
    if (error == EAGAIN || error == EINPROGRESS)
        return transport(QStringLiteral("no answer within %1 ms").arg(timeoutMs));
    return transport(QStringLiteral("cannot connect to %1: %2").arg(socketPath, errnoText(error)));
}

// Reads the answer with llhttp until it is whole.
Result<HttpResponse, LocalApiError> readAnswer(
    int fd, bool head, const QDeadlineTimer &deadline, int timeoutMs, const QString &sendWhy)
{
    HttpResponseParser parser(head);
    char buffer[64 * 1024];
    qint64 received = 0;
    // The engine closed the connection without a byte of answer: it stopped (a crash, a kill,
    // a shutdown) while it worked on the request.
    const LocalApiError stopped {LocalApiError::Code::Stopped, 0, {},
        QStringLiteral("the engine stopped before it answered; start it again with `isolation-server up` or the tray"),
        {}};
    while (parser.state() == HttpResponseParser::State::NeedMore) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            received += n;
            parser.feed(QByteArrayView(buffer, n));
        } else if (n == 0) {
            if (received == 0)
                return stopped;
            parser.finish();
        } else if (errno == EAGAIN) {
            QString waitWhy;
            if (!waitFor(fd, POLLIN, deadline, timeoutMs, &waitWhy))
                return transport(waitWhy);
        } else if (errno != EINTR) {
            if (received == 0 && errno == ECONNRESET)
                return stopped;
            return transport(
                sendWhy.isEmpty() ? QStringLiteral("the connection broke: %1").arg(errnoText(errno)) : sendWhy);
        }
    }
    if (parser.state() == HttpResponseParser::State::Error)
        return transport(sendWhy.isEmpty() ? parser.errorMessage() : sendWhy);
    return parser.takeResponse();
}

} // namespace

Result<HttpResponse, LocalApiError> LocalApiClient::request(
    const QByteArray &method, const QString &path, const QByteArray &body, const QByteArray &contentType) const
{
    if (!QFileInfo::exists(m_socket))
        return notRunning(m_socket);
    const QByteArray out = requestBytes(method, path, body, contentType, m_userAgent);
    if (out.isEmpty())
        return transport(QStringLiteral("not a valid request: %1 %2").arg(QString::fromUtf8(method), path));

    const QDeadlineTimer deadline = m_timeoutMs > 0 ? QDeadlineTimer(m_timeoutMs) : QDeadlineTimer(QDeadlineTimer::Forever);
    auto connected = connectTo(m_socket, deadline, m_timeoutMs);
    if (!connected)
        return connected.error();
    const Fd socket = std::move(connected.value());
    // An engine that answers before reading the whole request (a refusal) may close its side
    // early: then its answer, if it came whole, still counts, so a broken send is only the reason
    // kept for later.
    QString why;
    if (unixsocket::sendAll(socket.get(), out, deadline, m_timeoutMs, &why) == unixsocket::Sent::TimedOut)
        return transport(why);
    return readAnswer(socket.get(), method == "HEAD", deadline, m_timeoutMs, why);
}

Result<QJsonObject, LocalApiError> LocalApiClient::call(
    const QByteArray &method, const QString &path, const QJsonObject &body) const
{
    const QByteArray payload = body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
    auto result = request(method, path, payload);
    if (!result)
        return result.error();
    const HttpResponse &response = result.value();
    QJsonObject object;
    if (!response.body.isEmpty()) {
        QJsonParseError pe {};
        const QJsonDocument doc = QJsonDocument::fromJson(response.body, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject())
            return LocalApiError {LocalApiError::Code::Transport, response.status, {},
                QStringLiteral("the engine answered something that is not JSON (HTTP %1)").arg(response.status), {}};
        object = doc.object();
    }
    if (response.status < 200 || response.status > 299) {
        const QJsonObject error = object.value(QStringLiteral("error")).toObject();
        return LocalApiError {LocalApiError::Code::Api, response.status, error.value(QStringLiteral("code")).toString(),
            error.value(QStringLiteral("message")).toString(QStringLiteral("HTTP %1").arg(response.status)), object};
    }
    return object;
}

} // namespace isolation
