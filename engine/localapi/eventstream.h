// localapi: GET /v1/events, the EventHub's events as server-sent events (text/event-stream) to
// each subscriber, from the ring and then as they happen. A subscriber is a cursor into the ring,
// never a queue of its own: what the socket holds stays under a low-water mark, and one that falls
// behind by more than the ring is closed (its Last-Event-ID then gets "reset").
#pragma once

#include "http/httpserver.h"

#include <QObject>
#include <QTimer>

#include <memory>
#include <vector>

namespace isolation {

class EventHub;

class EventStream final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        int maxSubscribers = 16; // under the LocalAPI's 64 connections: streams never lock it out
        qint64 lowWaterBytes = 64 * 1024; // written to a socket only while it holds less than this
        int keepAliveMs = 20 * 1000; // a comment line when nothing else went out for this long
    };

    EventStream(EventHub *hub, Options options, QObject *parent = nullptr);
    ~EventStream() override;

    // Adds GET /v1/events to `http`. The route holds a pointer to this stream: close the server first.
    void addRoute(HttpServer &http);
    int subscriberCount() const { return int(m_subscribers.size()); }
    // Since the start: subscribers closed for falling behind by more than the ring.
    qint64 dropped() const { return m_dropped; }

    // One event in the wire format (without the chunk framing).
    static QByteArray frame(const QString &id, const QByteArray &kind, const QByteArray &data);

private:
    struct Subscriber;
    void subscribe(const HttpRequest &request, HttpReply reply);
    // Writes what `s` has not seen yet while its socket has room; false when it is gone.
    bool pump(Subscriber &s);
    void pumpAll();
    void keepAlive();
    void forgetGone();

    EventHub *m_hub;
    Options m_options;
    std::vector<std::unique_ptr<Subscriber>> m_subscribers;
    QTimer m_keepAlive;
    qint64 m_dropped = 0;
};

} // namespace isolation
