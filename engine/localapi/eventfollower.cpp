#include "eventfollower.h"

#include <QJsonDocument>
#include <QLocalSocket>
#include <QPointer>

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
    m_subscribed = false;
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
        m_socket->deleteLater();
        m_socket = nullptr;
    }
}

void EventFollower::connectNow()
{
    if (!m_running)
        return;
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
        m_socket->deleteLater();
    }
    m_parser.reset();
    m_subscribed = false;
    m_socket = new QLocalSocket(this);
    connect(m_socket, &QLocalSocket::connected, this, [this] {
        QByteArray request = "GET /v1/events HTTP/1.1\r\nHost: local\r\nAccept: text/event-stream\r\n";
        // Only what an id is made of goes into the header: the id came from the engine, but a
        // caller's start() argument must not be able to add a header line.
        const QByteArray id = m_lastId.toLatin1();
        if (!id.isEmpty() && !id.contains('\r') && !id.contains('\n'))
            request += "Last-Event-ID: " + id + "\r\n";
        m_socket->write(request + "\r\n");
    });
    connect(m_socket, &QLocalSocket::readyRead, this, &EventFollower::onReadyRead);
    connect(m_socket, &QLocalSocket::disconnected, this, [this] {
        m_parser.finish();
        lost(m_parser.state() == SseParser::State::Error ? m_parser.errorMessage()
                                                          : QStringLiteral("the engine closed the event stream"));
    });
    connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError e) {
        if (e == QLocalSocket::PeerClosedError)
            return; // disconnected() follows
        lost(e == QLocalSocket::ServerNotFoundError || e == QLocalSocket::ConnectionRefusedError
                ? QStringLiteral("no engine answers on %1").arg(m_socketPath)
                : m_socket->errorString());
    });
    m_socket->connectToServer(m_socketPath);
}

void EventFollower::onReadyRead()
{
    const QList<SseEvent> events = m_parser.feed(m_socket->readAll());
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
    if (!m_socket)
        return;
    m_socket->disconnect(this);
    m_socket->abort();
    m_socket->deleteLater();
    m_socket = nullptr;
    m_subscribed = false;
    Q_EMIT disconnected(why);
    if (!m_running)
        return;
    m_retry.start(m_retryMs);
    m_retryMs = std::min(m_retryMs * 2, 5000);
}

} // namespace isolation
