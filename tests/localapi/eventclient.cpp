#include "eventclient.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonDocument>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace isolation::test {

EventClient::~EventClient()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool EventClient::open(const QString &socket, const QString &lastEventId)
{
    m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    const QByteArray path = QFile::encodeName(socket);
    std::strncpy(addr.sun_path, path.constData(), sizeof addr.sun_path - 1);
    if (m_fd < 0 || ::connect(m_fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
        return false;
    QByteArray request = "GET /v1/events HTTP/1.1\r\nHost: local\r\n";
    if (!lastEventId.isEmpty())
        request += "Last-Event-ID: " + lastEventId.toLatin1() + "\r\n";
    request += "\r\n";
    return ::write(m_fd, request.constData(), size_t(request.size())) == request.size();
}

bool EventClient::pump(int ms)
{
    if (m_eof)
        return false;
    pollfd p {m_fd, POLLIN, 0};
    if (::poll(&p, 1, std::max(ms, 0)) <= 0)
        return false;
    char buffer[64 * 1024];
    const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
    if (n <= 0) {
        m_eof = true;
        m_parser.finish();
        return false;
    }
    for (const SseEvent &e : m_parser.feed(QByteArrayView(buffer, n)))
        m_pending.append({QString::fromLatin1(e.id), QString::fromUtf8(e.kind),
            QJsonDocument::fromJson(e.data).object()});
    return true;
}

QList<StreamEvent> EventClient::read(int count, int ms)
{
    QDeadlineTimer deadline(ms);
    while (m_pending.size() < count && !deadline.hasExpired() && !m_eof)
        pump(int(deadline.remainingTime()));
    const QList<StreamEvent> out = m_pending.first(std::min<qsizetype>(count, m_pending.size()));
    m_pending.remove(0, out.size());
    return out;
}

QList<StreamEvent> EventClient::readUntil(const std::function<bool(const StreamEvent &)> &match, int ms)
{
    QDeadlineTimer deadline(ms);
    QList<StreamEvent> out;
    for (;;) {
        while (!m_pending.isEmpty()) {
            out.append(m_pending.takeFirst());
            if (match(out.last()))
                return out;
        }
        if (deadline.hasExpired() || m_eof)
            return {};
        pump(int(deadline.remainingTime()));
    }
}

bool EventClient::readToEnd(int ms, QList<StreamEvent> *events)
{
    QDeadlineTimer deadline(ms);
    while (!m_eof && !deadline.hasExpired())
        pump(int(std::min<qint64>(deadline.remainingTime(), 1000)));
    events->append(m_pending);
    m_pending.clear();
    return m_eof;
}

} // namespace isolation::test
