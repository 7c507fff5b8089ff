#include "localapiclient.h"

#include "http/httpresponseparser.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace isolation {

namespace {

struct Fd
{
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

LocalApiError transport(const QString &why)
{
    return LocalApiError {LocalApiError::Code::Transport, 0, {}, QStringLiteral("LocalAPI request failed: %1").arg(why), {}};
}

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// Waits until `fd` is ready for `events`: true, or false with `why` set (the deadline passed, or poll failed).
bool waitFor(int fd, short events, const QDeadlineTimer &deadline, int timeoutMs, QString *why)
{
    for (;;) {
        pollfd p {fd, events, 0};
        const int rc = ::poll(&p, 1, deadline.isForever() ? -1 : int(deadline.remainingTime()));
        if (rc > 0)
            return true;
        if (rc == 0) {
            *why = QStringLiteral("no answer within %1 ms").arg(timeoutMs);
            return false;
        }
        if (errno != EINTR) {
            *why = errnoText(errno);
            return false;
        }
    }
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
Result<int, LocalApiError> connectTo(const QString &socketPath, const QDeadlineTimer &deadline, int timeoutMs)
{
    const QByteArray socketName = QFile::encodeName(socketPath);
    sockaddr_un address {};
    address.sun_family = AF_UNIX;
    if (size_t(socketName.size()) >= sizeof(address.sun_path))
        return transport(QStringLiteral("the socket path is too long: %1").arg(socketPath));
    std::memcpy(address.sun_path, socketName.constData(), size_t(socketName.size()));

    Fd socket {::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    if (socket.fd < 0)
        return transport(errnoText(errno));
    // A unix socket's connect waits only while the engine's accept backlog is full, for as long
    // as the send timeout allows.
    if (!deadline.isForever()) {
        const qint64 ms = std::max<qint64>(1, deadline.remainingTime());
        const timeval tv {time_t(ms / 1000), suseconds_t((ms % 1000) * 1000)};
        ::setsockopt(socket.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    int rc;
    do {
        rc = ::connect(socket.fd, reinterpret_cast<const sockaddr *>(&address), sizeof address);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        const int error = errno;
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
    ::fcntl(socket.fd, F_SETFL, ::fcntl(socket.fd, F_GETFL) | O_NONBLOCK);
    return std::exchange(socket.fd, -1);
}

// Sends the request. An engine that answers before reading it all (a refusal) may close its side
// early: then its answer, if it came whole, still counts, so a broken send is only the reason
// kept for later (`why`). Fails only when the deadline passes.
Status sendAll(int fd, const QByteArray &out, const QDeadlineTimer &deadline, int timeoutMs, QString *why)
{
    for (qsizetype sent = 0; sent < out.size();) {
        const ssize_t n = ::send(fd, out.constData() + sent, size_t(out.size() - sent), MSG_NOSIGNAL);
        if (n >= 0) {
            sent += n;
        } else if (errno == EAGAIN) {
            if (!waitFor(fd, POLLOUT, deadline, timeoutMs, why))
                return Error::unavailable(*why);
        } else if (errno != EINTR) {
            *why = QStringLiteral("the connection broke: %1").arg(errnoText(errno));
            break;
        }
    }
    return {};
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
    const Fd socket {connected.value()};
    QString why;
    if (auto sent = sendAll(socket.fd, out, deadline, m_timeoutMs, &why); !sent)
        return transport(sent.error().message);
    return readAnswer(socket.fd, method == "HEAD", deadline, m_timeoutMs, why);
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
