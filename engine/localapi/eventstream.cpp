#include "eventstream.h"

#include "eventhub.h"

#include <QJsonDocument>
#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcLocalApi)

namespace isolation {

struct EventStream::Subscriber
{
    HttpReply reply;
    quint64 cursor = 0; // the number of the last event written to it
    bool wroteSinceTick = false;
};

EventStream::EventStream(EventHub *hub, Options options, QObject *parent)
    : QObject(parent)
    , m_hub(hub)
    , m_options(options)
{
    connect(m_hub, &EventHub::published, this, &EventStream::pumpAll);
    // One timer for all: each subscriber gets a keep-alive line when the whole interval passed
    // without a write to it, so the comment goes out at most once per interval.
    m_keepAlive.setInterval(m_options.keepAliveMs);
    connect(&m_keepAlive, &QTimer::timeout, this, &EventStream::keepAlive);
}

EventStream::~EventStream() = default;

QByteArray EventStream::frame(const QString &id, const QByteArray &kind, const QByteArray &data)
{
    // `data` is compact JSON: one line, no raw newline in it (JSON escapes them in strings).
    return "id: " + id.toLatin1() + "\nevent: " + kind + "\ndata: " + data + "\n\n";
}

void EventStream::addRoute(HttpServer &http)
{
    http.route("GET", QStringLiteral("/v1/events"),
        [this](const HttpRequest &request, HttpReply reply) { subscribe(request, reply); });
}

void EventStream::subscribe(const HttpRequest &request, HttpReply reply)
{
    forgetGone();
    if (int(m_subscribers.size()) >= m_options.maxSubscribers) {
        reply.send(HttpResponse::error(503, QStringLiteral("too_many_streams"),
            QStringLiteral("%1 event streams are open already; close one").arg(m_options.maxSubscribers)));
        return;
    }
    auto s = std::make_unique<Subscriber>();
    s->reply = reply;
    s->cursor = m_hub->lastNumber();
    const QByteArray last = request.header("Last-Event-ID").trimmed();
    QByteArray first;
    if (!last.isEmpty()) {
        QString why;
        if (const auto after = m_hub->resumeAfter(last, &why)) {
            s->cursor = *after;
        } else {
            const QJsonObject data {{QStringLiteral("reason"), why}, {QStringLiteral("lastEventId"), m_hub->lastId()}};
            first = frame(m_hub->lastId(), "reset", QJsonDocument(data).toJson(QJsonDocument::Compact));
        }
    }
    HttpHeaders headers {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-store"}};
    reply.sendHead(200, headers);
    // At once, so a client knows it is subscribed before any event: the id it is at, without an
    // event (EventSource keeps it as its last id), so even a client that saw no event yet
    // reconnects with an id and learns of an engine restart.
    reply.write(first.isEmpty() ? QByteArray(": subscribed\nid: " + m_hub->idOf(s->cursor).toLatin1() + "\n\n") : first);
    Subscriber *raw = s.get();
    m_subscribers.push_back(std::move(s));
    reply.setDrainHandler(
        [this, raw] {
            for (const auto &s : m_subscribers) {
                if (s.get() == raw) {
                    pump(*raw);
                    return;
                }
            }
        },
        m_options.lowWaterBytes);
    pump(*raw);
    if (!m_keepAlive.isActive())
        m_keepAlive.start();
}

bool EventStream::pump(Subscriber &s)
{
    if (!s.reply.connected())
        return false;
    QByteArray batch;
    while (s.cursor < m_hub->lastNumber() && s.reply.bytesToWrite() + batch.size() < m_options.lowWaterBytes) {
        const EngineEvent *e = m_hub->event(s.cursor + 1);
        if (!e) {
            // Fell out of the ring while the peer was not reading: what it missed is gone. It
            // reconnects with its Last-Event-ID and is told to reset.
            ++m_dropped;
            qCInfo(lcLocalApi) << "event stream: closing a subscriber that fell" << m_hub->lastNumber() - s.cursor
                               << "events behind";
            s.reply.close();
            return false;
        }
        batch += frame(m_hub->idOf(e->number), e->kind, e->data);
        s.cursor = e->number;
    }
    if (!batch.isEmpty()) {
        s.reply.write(batch);
        s.wroteSinceTick = true;
    }
    return true;
}

void EventStream::pumpAll()
{
    for (const auto &s : m_subscribers)
        pump(*s);
    forgetGone();
}

void EventStream::keepAlive()
{
    forgetGone();
    for (const auto &s : m_subscribers) {
        // Only into an empty socket: a peer that does not read gets nothing more queued.
        if (!s->wroteSinceTick && s->reply.bytesToWrite() == 0)
            s->reply.write(": \n\n");
        s->wroteSinceTick = false;
    }
    if (m_subscribers.empty())
        m_keepAlive.stop();
}

void EventStream::forgetGone()
{
    std::erase_if(m_subscribers, [](const std::unique_ptr<Subscriber> &s) { return !s->reply.connected(); });
}

} // namespace isolation
