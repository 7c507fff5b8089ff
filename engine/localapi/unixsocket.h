// localapi: the few POSIX unix-socket calls the LocalAPI's clients share (the CLI's and the tray's
// LocalApiClient, the tray's EventFollower and its single-instance socket). Plain sockets, not
// QLocalSocket: the tray then needs no Qt Network, which with Kerberos and libproxy costs it
// ~1.7 MiB of memory at rest (bench/README.md, "tray").
#pragma once

#include <QDeadlineTimer>
#include <QString>

#include <utility>

namespace isolation::unixsocket {

// An owned file descriptor, closed when it goes.
class Fd
{
public:
    Fd() = default;
    explicit Fd(int fd)
        : m_fd(fd)
    { }
    Fd(Fd &&other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    { }
    Fd &operator=(Fd &&other) noexcept;
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    ~Fd() { reset(); }

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    void reset(int fd = -1);

private:
    int m_fd = -1;
};

// The text of an errno value.
QString errnoText(int error);

// A stream socket connected to `path`, non-blocking once connected. A unix socket's connect waits
// only while the listener's backlog is full, and never past `deadline`; a deadline already expired
// (QDeadlineTimer(0)) never waits: a full backlog is EAGAIN at once (for a GUI thread). On failure:
// an invalid Fd, and `*error` is the errno (ENAMETOOLONG for a path too long for a socket address).
Fd connectTo(const QString &path, const QDeadlineTimer &deadline, int *error);

// A listening stream socket at `path` (non-blocking, close-on-exec), readable and writable by its
// owner only. On failure: an invalid Fd and the errno in `*error` (EADDRINUSE: a file is there).
Fd listenAt(const QString &path, int *error);

// Waits until `fd` is ready for `events` (POLLIN, POLLOUT): true, or false with `why` (the
// deadline of `timeoutMs` passed, or poll failed).
bool waitFor(int fd, short events, const QDeadlineTimer &deadline, int timeoutMs, QString *why);

// Sends all of `bytes` before `deadline` (MSG_NOSIGNAL: a closed peer is an error, not a signal).
enum class Sent { All, Broken, TimedOut };
Sent sendAll(int fd, QByteArrayView bytes, const QDeadlineTimer &deadline, int timeoutMs, QString *why);

} // namespace isolation::unixsocket
