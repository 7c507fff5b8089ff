#include "eventfollower.h"

#include <QJsonDocument>
#include <QPointer>
#include <QSocketNotifier>

#include <cerrno>

#include <unistd.h>

namespace isolation {

EventFollower::EventFollower(QString socketPath, QObject *parent)
    : QObject(parent)
    , m_socketPath(std::move(socketPath))
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &EventFollower::connectNow);
}

EventFollower::~EventFollower()
{
    stop();
}

void EventFollower::start(const QString &lastEventId)
{
    m_lastId = lastEventId;
    m_running = true;
    m_retryMs = m_firstRetryMs;
    connectNow();
}

void EventFollower::stop()
{
    m_running = false;
    m_retry.stop();
    close();
}

void EventFollower::close()
{
    m_subscribed = false;
    if (m_readable) {
        m_readable->setEnabled(false);
        m_readable->deleteLater();
        m_readable = nullptr;
    }
    m_socket.reset();
}

void EventFollower::connectNow()
{
    if (!m_running)
        return;
    close();
    m_parser.reset();
    ++m_connection;
    // A unix socket connects at once or not at all (a full backlog: EAGAIN, tried again later); the
    // request is a few hundred bytes, which a new socket's buffer always takes: nothing here waits
    // on the GUI thread.
    int error = 0;
    m_socket = unixsocket::connectTo(m_socketPath, QDeadlineTimer(0), &error);
    if (!m_socket.valid()) {
        if (error == ENOENT || error == ECONNREFUSED)
            lost(QStringLiteral("no engine answers on %1").arg(m_socketPath));
        else if (error == EAGAIN)
            lost(QStringLiteral("the engine on %1 takes no new connection now (busy or hung)").arg(m_socketPath));
        else
            lost(QStringLiteral("cannot connect to %1: %2").arg(m_socketPath, unixsocket::errnoText(error)));
        return;
    }
    QByteArray request = "GET /v1/events HTTP/1.1\r\nHost: local\r\nAccept: text/event-stream\r\n";
    // Only what an id is made of goes into the header: the id came from the engine, but a
    // caller's start() argument must not be able to add a header line.
    const QByteArray id = m_lastId.toLatin1();
    if (!id.isEmpty() && !id.contains('\r') && !id.contains('\n'))
        request += "Last-Event-ID: " + id + "\r\n";
    request += "\r\n";
    QString why;
    if (unixsocket::sendAll(m_socket.get(), request, QDeadlineTimer(1000), 1000, &why) != unixsocket::Sent::All) {
        lost(why);
        return;
    }
    m_readable = new QSocketNotifier(m_socket.get(), QSocketNotifier::Read, this);
    connect(m_readable, &QSocketNotifier::activated, this, &EventFollower::onReadyRead);
}

void EventFollower::onReadyRead()
{
    QByteArray received;
    bool closed = false;
    char buffer[16 * 1024];
    for (;;) {
        const ssize_t n = ::read(m_socket.get(), buffer, sizeof buffer);
        if (n > 0) {
            received.append(buffer, n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        closed = n == 0 || errno != EAGAIN; // the engine closed the stream, or it broke
        break;
    }
    if (!received.isEmpty()) {
        QPointer<EventFollower> self(this);
        const quint64 connection = m_connection;
        handle(m_parser.feed(received));
        if (!self || !m_socket.valid() || m_connection != connection)
            return; // a slot stopped, restarted or deleted us, or the stream ended
    }
    if (closed) {
        m_parser.finish();
        lost(m_parser.state() == SseParser::State::Error ? m_parser.errorMessage()
                                                          : QStringLiteral("the engine closed the event stream"));
    }
}

void EventFollower::handle(const QList<SseEvent> &events)
{
    if (!m_subscribed && m_parser.state() == SseParser::State::Events) {
        m_subscribed = true;
        m_retryMs = m_firstRetryMs;
        Q_EMIT subscribed();
    }
    QPointer<EventFollower> self(this);
    for (const SseEvent &e : events) {
        QJsonParseError pe {};
        const QJsonDocument doc = QJsonDocument::fromJson(e.data, &pe);
        m_lastId = QString::fromLatin1(e.id);
        Q_EMIT event(LocalApiEvent {m_lastId, QString::fromUtf8(e.kind), doc.object()});
        if (!self || !m_running)
            return; // a slot stopped or deleted us
    }
    // An id may also come without an event (where the stream starts).
    if (!m_parser.lastId().isEmpty())
        m_lastId = QString::fromLatin1(m_parser.lastId());
    switch (m_parser.state()) {
    case SseParser::State::Error:
        lost(m_parser.errorMessage());
        break;
    case SseParser::State::Refused:
    case SseParser::State::Ended: {
        if (m_parser.state() == SseParser::State::Refused)
            break; // the rest of the refusal is still coming
        const QJsonObject error
            = QJsonDocument::fromJson(m_parser.errorBody()).object().value(QStringLiteral("error")).toObject();
        lost(m_parser.status() == 200 ? QStringLiteral("the engine ended the event stream")
                                      : QStringLiteral("the engine refused the event stream (HTTP %1): %2")
                                            .arg(m_parser.status())
                                            .arg(error.value(QStringLiteral("message")).toString()));
        break;
    }
    case SseParser::State::Head:
    case SseParser::State::Events:
        break;
    }
}

void EventFollower::lost(const QString &why)
{
    close();
    Q_EMIT disconnected(why);
    if (!m_running)
        return;
    m_retry.start(m_retryMs);
    m_retryMs = std::min(m_retryMs * 2, 5000);
}

} // namespace isolation
