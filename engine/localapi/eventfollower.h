// localapi: follows an engine's event stream (GET /v1/events) over its unix socket, on the event
// loop (for the tray and `isolation-server events`). Reconnects by itself with the last id it saw
// as Last-Event-ID, so a dropped stream or an engine restart loses nothing silently: the engine
// replays what was missed, or starts with a "reset" event (re-read GET /v1/snapshot).
#pragma once

#include "sseparser.h"
#include "unixsocket.h"

#include <QJsonObject>
#include <QObject>
#include <QTimer>

class QSocketNotifier;

namespace isolation {

struct LocalApiEvent
{
    QString id; // "<run>-<number>"
    QString kind; // "state", "session.progress", "reset", ...
    QJsonObject data;
};

class EventFollower final : public QObject
{
    Q_OBJECT
public:
    explicit EventFollower(QString socketPath, QObject *parent = nullptr);
    ~EventFollower() override;

    // Connects, asking for what came after `lastEventId` (empty: only what comes from now on).
    void start(const QString &lastEventId = {});
    void stop();
    QString lastEventId() const { return m_lastId; }
    bool isConnected() const { return m_subscribed; }
    // The delay before the first reconnect (doubling up to 5 s while the engine does not answer).
    void setRetryDelay(int ms) { m_firstRetryMs = ms; }

Q_SIGNALS:
    void subscribed(); // the engine accepted the stream (again)
    void event(const isolation::LocalApiEvent &event);
    // The stream broke (or could not be opened); it reconnects unless stopped. `why` for people.
    void disconnected(const QString &why);

private:
    void connectNow();
    void onReadyRead();
    void handle(const QList<SseEvent> &events);
    void lost(const QString &why);
    void close();

    QString m_socketPath;
    // The stream's socket, read on the event loop when it is readable. A plain socket, not
    // QLocalSocket, so the tray needs no Qt Network (localapi/unixsocket.h).
    unixsocket::Fd m_socket;
    QSocketNotifier *m_readable = nullptr; // a child; deleted later (it may be emitting)
    quint64 m_connection = 0; // counts connections: a slot may have started a new one
    SseParser m_parser;
    QString m_lastId;
    QTimer m_retry;
    int m_firstRetryMs = 250;
    int m_retryMs = 250;
    bool m_running = false;
    bool m_subscribed = false;
};

} // namespace isolation

Q_DECLARE_METATYPE(isolation::LocalApiEvent)
