#include "sseparser.h"

#include "http/httpresponseparser.h"

#include <algorithm>
#include <limits>

namespace isolation {

SseParser::SseParser()
{
    reset();
}

SseParser::~SseParser() = default;

void SseParser::reset()
{
    m_state = State::Head;
    m_text.clear();
    m_body.clear();
    m_event = {};
    m_lastId.clear();
    m_hasData = false;
    m_error.clear();
    // The stream has no end in sight: the limits are per event and per line (parseLines), and on a
    // refusal's body (the sink).
    m_http = std::make_unique<HttpResponseParser>(HttpResponseParser::Options {
        .maxHeadBytes = kMaxHeadBytes, .maxBodyBytes = std::numeric_limits<qint64>::max()});
    m_http->setHeadHandler([this](const HttpResponse &head, bool chunked) -> QString {
        m_state = head.status == 200 ? State::Events : State::Refused;
        if (m_state == State::Events && !chunked)
            return QStringLiteral("the event stream is not chunked");
        return {};
    });
    m_http->setBodySink([this](QByteArrayView bytes) -> QString {
        if (m_state != State::Refused) {
            m_text.append(bytes);
            return {};
        }
        m_body.append(bytes);
        return m_body.size() > kMaxEventBytes ? QStringLiteral("the engine's answer is too large") : QString();
    });
}

int SseParser::status() const
{
    return m_http->response().status; // 0 until the head is in
}

void SseParser::fail(const QString &why)
{
    m_state = State::Error;
    m_error = why;
    m_text.clear();
}

QList<SseEvent> SseParser::feed(QByteArrayView bytes)
{
    QList<SseEvent> out;
    if (m_state == State::Error || m_state == State::Ended)
        return out;
    // In slices, so that events are cut (and a line over its limit caught) as the body grows.
    constexpr qsizetype kSlice = 64 * 1024;
    for (qsizetype at = 0; at < bytes.size() && m_state != State::Error && m_state != State::Ended; at += kSlice) {
        m_http->feed(bytes.sliced(at, std::min(kSlice, bytes.size() - at)));
        if (m_http->state() == HttpResponseParser::State::Error) {
            fail(m_http->errorMessage());
            break;
        }
        if (m_state == State::Events)
            parseLines(&out);
        if (m_http->state() == HttpResponseParser::State::Complete && m_state != State::Error)
            m_state = State::Ended; // the final chunk; nothing after the answer is ours
    }
    return out;
}

void SseParser::finish()
{
    if (m_state == State::Error || m_state == State::Ended)
        return;
    if (m_state == State::Head) {
        fail(QStringLiteral("the engine closed the connection before answering"));
        return;
    }
    // A refusal delimited by the connection's close is complete now; a stream simply ended.
    m_http->finish();
    m_state = State::Ended;
}

void SseParser::parseLines(QList<SseEvent> *out)
{
    qsizetype start = 0;
    for (;;) {
        const qsizetype eol = m_text.indexOf('\n', start);
        if (eol < 0)
            break;
        QByteArrayView line(m_text.constData() + start, eol - start);
        start = eol + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.isEmpty()) {
            // An event ends; one with no data is no event (EventSource drops it too), but its id stays.
            if (m_hasData) {
                m_event.id = m_lastId;
                if (m_event.kind.isEmpty())
                    m_event.kind = "message";
                out->append(m_event);
            }
            m_event = {};
            m_hasData = false;
            continue;
        }
        if (line.startsWith(':'))
            continue; // a comment: keep-alive
        const qsizetype colon = line.indexOf(':');
        const QByteArrayView field = colon < 0 ? line : line.first(colon);
        QByteArrayView value = colon < 0 ? QByteArrayView() : line.sliced(colon + 1);
        if (value.startsWith(' '))
            value = value.sliced(1);
        if (field == "id") {
            if (!value.contains('\0'))
                m_lastId = value.toByteArray();
        } else if (field == "event") {
            m_event.kind = value.toByteArray();
        } else if (field == "data") {
            if (m_hasData)
                m_event.data += '\n';
            m_event.data += value;
            m_hasData = true;
            if (m_event.data.size() > kMaxEventBytes) {
                fail(QStringLiteral("an event is too large"));
                return;
            }
        }
    }
    m_text.remove(0, start);
    if (m_text.size() > kMaxEventBytes)
        fail(QStringLiteral("a line of the event stream is too long"));
}

} // namespace isolation
