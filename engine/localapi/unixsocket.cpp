#include "unixsocket.h"

#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace isolation::unixsocket {

namespace {

// The socket address of `path`; false when the path does not fit in one.
bool addressOf(const QString &path, sockaddr_un *address)
{
    const QByteArray name = QFile::encodeName(path);
    *address = sockaddr_un {};
    address->sun_family = AF_UNIX;
    if (name.isEmpty() || size_t(name.size()) >= sizeof(address->sun_path))
        return false;
    std::memcpy(address->sun_path, name.constData(), size_t(name.size()));
    return true;
}

void setNonBlocking(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

} // namespace

Fd &Fd::operator=(Fd &&other) noexcept
{
    if (this != &other)
        reset(std::exchange(other.m_fd, -1));
    return *this;
}

void Fd::reset(int fd)
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = fd;
}

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

Fd connectTo(const QString &path, const QDeadlineTimer &deadline, int *error)
{
    sockaddr_un address;
    if (!addressOf(path, &address)) {
        *error = ENAMETOOLONG;
        return {};
    }
    const bool never = deadline.hasExpired();
    Fd socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (never ? SOCK_NONBLOCK : 0), 0));
    if (!socket.valid()) {
        *error = errno;
        return {};
    }
    if (!deadline.isForever() && !never) {
        const qint64 ms = std::max<qint64>(1, deadline.remainingTime());
        const timeval tv {time_t(ms / 1000), suseconds_t((ms % 1000) * 1000)};
        ::setsockopt(socket.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    int rc;
    do {
        rc = ::connect(socket.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        *error = errno;
        return {};
    }
    setNonBlocking(socket.get());
    *error = 0;
    return socket;
}

Fd listenAt(const QString &path, int *error)
{
    sockaddr_un address;
    if (!addressOf(path, &address)) {
        *error = ENAMETOOLONG;
        return {};
    }
    Fd socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!socket.valid()) {
        *error = errno;
        return {};
    }
    // The socket file is made with the umask's mode: owner-only from its first moment, then the
    // umask given back (it is the process's, shared by every thread, so only for this call).
    const mode_t previous = ::umask(0077);
    const int rc = ::bind(socket.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address);
    const int bindError = errno;
    ::umask(previous);
    if (rc < 0) {
        *error = bindError;
        return {};
    }
    if (::listen(socket.get(), 16) < 0) {
        *error = errno;
        ::unlink(address.sun_path);
        return {};
    }
    *error = 0;
    return socket;
}

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

Sent sendAll(int fd, QByteArrayView bytes, const QDeadlineTimer &deadline, int timeoutMs, QString *why)
{
    for (qsizetype sent = 0; sent < bytes.size();) {
        const ssize_t n = ::send(fd, bytes.data() + sent, size_t(bytes.size() - sent), MSG_NOSIGNAL);
        if (n >= 0) {
            sent += n;
        } else if (errno == EAGAIN) {
            if (!waitFor(fd, POLLOUT, deadline, timeoutMs, why))
                return Sent::TimedOut;
        } else if (errno != EINTR) {
            *why = QStringLiteral("the connection broke: %1").arg(errnoText(errno));
            return Sent::Broken;
        }
    }
    return Sent::All;
}

} // namespace isolation::unixsocket
