// A blocking LocalAPI event-stream reader for tests: one raw unix socket, the request written
// by hand (with or without Last-Event-ID), the answer read with poll() and cut by SseParser. It
// needs no event loop, so the engine under test must be another process.
#pragma once

#include "localapi/sseparser.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace isolation::test {

struct StreamEvent
{
    QString id;
    QString kind;
    QJsonObject data;
    quint64 number() const { return id.section(QLatin1Char('-'), -1).toULongLong(); }
    QString run() const { return id.section(QLatin1Char('-'), 0, -2); }
};

class EventClient
{
public:
    EventClient() = default;
    ~EventClient();
    EventClient(const EventClient &) = delete;
    EventClient &operator=(const EventClient &) = delete;

    // Connects and sends GET /v1/events; reads nothing yet.
    bool open(const QString &socket, const QString &lastEventId = {});
    // Reads until `count` events came, or `ms` passed, or the stream ended.
    QList<StreamEvent> read(int count, int ms);
    // Reads until an event matches, collecting all on the way (empty when none matched in time).
    QList<StreamEvent> readUntil(const std::function<bool(const StreamEvent &)> &match, int ms);
    // Reads everything until the engine closes the connection (true) or `ms` pass (false).
    bool readToEnd(int ms, QList<StreamEvent> *events);
    // The id the stream started at (the `id:` line before any event) or the last one seen.
    QString lastId() const { return QString::fromLatin1(m_parser.lastId()); }
    SseParser::State state() const { return m_parser.state(); }
    int status() const { return m_parser.status(); }

private:
    bool pump(int ms); // reads once; false on timeout or end
    int m_fd = -1;
    bool m_eof = false;
    SseParser m_parser;
    QList<StreamEvent> m_pending;
};

} // namespace isolation::test
