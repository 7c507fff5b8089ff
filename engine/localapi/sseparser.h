// localapi: the client side of GET /v1/events. The answer's HTTP (status line, headers, chunked
// body) is read by HttpResponseParser (llhttp) as it comes off the unix socket, its body streamed
// here; the body is cut here into server-sent
// events (WHATWG "Server-sent events", the parts EventSource reads). Bounded: a head, a line or an
// event past its limit is an error, never an ever-growing buffer.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>

namespace isolation {

class HttpResponseParser;

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

    SseParser();
    ~SseParser();
    SseParser(const SseParser &) = delete;
    SseParser &operator=(const SseParser &) = delete;
    // As new, for the next connection.
    void reset();

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
    int status() const;
    QByteArray errorBody() const { return m_body; }
    QString errorMessage() const { return m_error; }
    // The last `id:` seen, with or without an event after it.
    QByteArray lastId() const { return m_lastId; }

private:
    void parseLines(QList<SseEvent> *out);
    void fail(const QString &why);

    std::unique_ptr<HttpResponseParser> m_http; // a new one per connection
    State m_state = State::Head;
    QByteArray m_text; // body bytes not yet cut into lines
    QByteArray m_body; // the body of a refusal
    SseEvent m_event; // the event being read
    QByteArray m_lastId;
    bool m_hasData = false;
    QString m_error;
};

} // namespace isolation
