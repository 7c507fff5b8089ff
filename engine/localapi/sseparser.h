// localapi: the client side of GET /v1/events. Reads the answer as it comes off the unix socket
// (status line, headers, chunked body) and cuts the body into server-sent events. Bounded: a
// head, a line or an event past its limit is an error, never an ever-growing buffer.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace isolation {

struct SseEvent
{
    QByteArray id; // the last `id:` seen (it carries over to later events, as in EventSource)
    QByteArray kind; // `event:`; "message" when the event named none
    QByteArray data; // the `data:` lines joined by "\n"
};

class SseParser
{
public:
    static constexpr qsizetype kMaxHeadBytes = 64 * 1024;
    static constexpr qsizetype kMaxEventBytes = 4 * 1024 * 1024;

    enum class State {
        Head, // the status line and headers are coming
        Events, // 200: events come
        Refused, // another status: errorBody() holds the answer (complete once ended())
        Ended, // the stream ended (final chunk, or the connection closed by the peer)
        Error, // malformed, or over a limit: errorMessage() says which
    };

    // Feeds bytes as they come; returns the events they completed.
    QList<SseEvent> feed(QByteArrayView bytes);
    // The peer closed the connection.
    void finish();

    State state() const { return m_state; }
    int status() const { return m_status; }
    QByteArray errorBody() const { return m_body; }
    QString errorMessage() const { return m_error; }
    // The last `id:` seen, with or without an event after it.
    QByteArray lastId() const { return m_lastId; }

private:
    bool parseHead();
    // Takes body bytes out of m_in (unchunked as needed) into m_text; false when it needs more.
    bool unchunk();
    void parseLines(QList<SseEvent> *out);
    void fail(const QString &why);

    State m_state = State::Head;
    QByteArray m_in; // raw bytes not consumed yet
    QByteArray m_text; // body bytes not yet cut into lines
    QByteArray m_body; // the body of a refusal
    int m_status = 0;
    bool m_chunked = false;
    qint64 m_contentLength = -1;
    qint64 m_chunkLeft = -1; // bytes left in the current chunk; -1: a size line comes next
    SseEvent m_event; // the event being read
    QByteArray m_lastId;
    bool m_hasData = false;
    QString m_error;
};

} // namespace isolation
