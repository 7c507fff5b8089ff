#include "sseparser.h"

#include "http/llhttpresult.h"

#include <algorithm>

namespace isolation {

namespace {

SseParser *self(llhttp_t *p)
{
    return static_cast<SseParser *>(p->data);
}

} // namespace

SseParser::SseParser()
{
    reset();
}

void SseParser::reset()
{
    m_state = State::Head;
    m_headBytes = 0;
    m_text.clear();
    m_body.clear();
    m_status = 0;
    m_event = {};
    m_lastId.clear();
    m_hasData = false;
    m_error.clear();
    llhttp_settings_init(&m_settings);
    m_settings.on_status = &SseParser::onHeaderBytes;
    m_settings.on_header_field = &SseParser::onHeaderBytes;
    m_settings.on_header_value = &SseParser::onHeaderBytes;
    m_settings.on_headers_complete = &SseParser::onHeadersComplete;
    m_settings.on_body = &SseParser::onBody;
    m_settings.on_message_complete = &SseParser::onMessageComplete;
    llhttp_init(&m_parser, HTTP_RESPONSE, &m_settings);
    m_parser.data = this;
}

void SseParser::fail(const QString &why)
{
    m_state = State::Error;
    m_error = why;
    m_text.clear();
}

int SseParser::onHeaderBytes(llhttp_t *p, const char *, size_t len)
{
    SseParser *s = self(p);
    s->m_headBytes += qsizetype(len);
    if (s->m_headBytes > kMaxHeadBytes) {
        s->fail(QStringLiteral("the answer's head is too large"));
        return -1;
    }
    return 0;
}

int SseParser::onHeadersComplete(llhttp_t *p)
{
    SseParser *s = self(p);
    s->m_status = int(llhttp_get_status_code(p));
    s->m_state = s->m_status == 200 ? State::Events : State::Refused;
    if (s->m_state == State::Events && !(p->flags & F_CHUNKED)) {
        s->fail(QStringLiteral("the event stream is not chunked"));
        return -1;
    }
    return 0;
}

int SseParser::onBody(llhttp_t *p, const char *at, size_t len)
{
    SseParser *s = self(p);
    if (s->m_state == State::Refused) {
        s->m_body.append(at, qsizetype(len));
        if (s->m_body.size() > kMaxEventBytes) {
            s->fail(QStringLiteral("the engine's answer is too large"));
            return -1;
        }
        return 0;
    }
    s->m_text.append(at, qsizetype(len));
    return 0;
}

int SseParser::onMessageComplete(llhttp_t *p)
{
    SseParser *s = self(p);
    if (s->m_state == State::Events || s->m_state == State::Refused)
        s->m_state = State::Ended;
    return HPE_PAUSED; // nothing after the answer is ours
}

QList<SseEvent> SseParser::feed(QByteArrayView bytes)
{
    QList<SseEvent> out;
    if (m_state == State::Error || m_state == State::Ended)
        return out;
    // In slices, so that events are cut (and a line over its limit caught) as the body grows.
    constexpr qsizetype kSlice = 64 * 1024;
    for (qsizetype at = 0; at < bytes.size() && m_state != State::Error && m_state != State::Ended; at += kSlice) {
        const QByteArrayView slice = bytes.sliced(at, std::min(kSlice, bytes.size() - at));
        const llhttp_errno_t err = llhttp_execute(&m_parser, slice.data(), size_t(slice.size()));
        if (err != HPE_OK && err != HPE_PAUSED && m_state != State::Error)
            fail(QStringLiteral("the engine's answer is not valid HTTP: %1").arg(llhttpWhy(&m_parser, err)));
        if (m_state == State::Events || m_state == State::Ended)
            parseLines(&out);
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
    (void)llhttp_finish(&m_parser);
    if (m_state != State::Error)
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
