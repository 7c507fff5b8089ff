#include "singleinstance.h"

#include <QFile>
#include <QSocketNotifier>

#include <memory>

#include <cerrno>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace isolation {

namespace {
const QByteArray kRaise = QByteArrayLiteral("raise\n");
}

SingleInstance::SingleInstance(QString socketPath, QObject *parent)
    : QObject(parent)
    , m_path(std::move(socketPath))
{ }

SingleInstance::~SingleInstance()
{
    if (m_listener.valid())
        QFile::remove(m_path);
}

bool SingleInstance::notifyRunning()
{
    int error = 0;
    const unixsocket::Fd socket = unixsocket::connectTo(m_path, QDeadlineTimer(500), &error);
    if (!socket.valid())
        return false;
    QString why;
    if (unixsocket::sendAll(socket.get(), kRaise, QDeadlineTimer(1000), 1000, &why) != unixsocket::Sent::All)
        return false;
    // Wait for the running tray to acknowledge, so a caller knows the window was raised.
    const QDeadlineTimer deadline(2000);
    QByteArray answer;
    char buffer[16];
    while (!answer.contains('\n') && unixsocket::waitFor(socket.get(), POLLIN, deadline, 2000, &why)) {
        const ssize_t n = ::read(socket.get(), buffer, sizeof buffer);
        if (n > 0)
            answer.append(buffer, n);
        else if (n == 0 || errno != EINTR)
            break;
    }
    return answer.startsWith("ok");
}

bool SingleInstance::listen()
{
    int error = 0;
    m_listener = unixsocket::listenAt(m_path, &error);
    if (!m_listener.valid() && error == EADDRINUSE) {
        if (notifyRunning()) {
            m_error = tr("another tray is running (%1)").arg(m_path);
            return false;
        }
        // Nobody answers on the socket: a tray died without removing it.
        QFile::remove(m_path);
        m_listener = unixsocket::listenAt(m_path, &error);
    }
    if (!m_listener.valid()) {
        m_error = tr("cannot listen on %1: %2").arg(m_path, unixsocket::errnoText(error));
        return false;
    }
    m_incoming = new QSocketNotifier(m_listener.get(), QSocketNotifier::Read, this);
    connect(m_incoming, &QSocketNotifier::activated, this, &SingleInstance::accept);
    return true;
}

void SingleInstance::accept()
{
    for (;;) {
        const int client = ::accept4(m_listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0) {
            if (errno == EINTR)
                continue;
            return; // EAGAIN: no one else waits
        }
        serve(client);
    }
}

void SingleInstance::serve(int client)
{
    // The client sends six bytes and waits for the answer; read them on the event loop.
    auto *readable = new QSocketNotifier(client, QSocketNotifier::Read, this);
    auto received = std::make_shared<QByteArray>();
    connect(readable, &QSocketNotifier::activated, this, [this, readable, client, received] {
        char buffer[64];
        ssize_t n;
        while ((n = ::read(client, buffer, sizeof buffer)) > 0 && received->size() < 64)
            received->append(buffer, n);
        const bool closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
        if (!received->contains('\n') && !closed && received->size() < 64)
            return; // the rest is still coming
        if (received->startsWith(kRaise)) {
            Q_EMIT raiseRequested();
            ::send(client, "ok\n", 3, MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        readable->setEnabled(false);
        readable->deleteLater();
        ::close(client);
    });
}

} // namespace isolation
