#include "sseparser.h"

namespace isolation {

void SseParser::fail(const QString &why)
{
    m_state = State::Error;
    m_error = why;
    m_in.clear();
    m_text.clear();
}

QList<SseEvent> SseParser::feed(QByteArrayView bytes)
{
    QList<SseEvent> out;
    if (m_state == State::Error || m_state == State::Ended)
        return out;
    m_in.append(bytes);
    if (m_state == State::Head && !parseHead())
        return out;
    while (m_state == State::Events || m_state == State::Refused) {
        const bool more = unchunk();
        if (m_state == State::Events)
            parseLines(&out);
        else if (m_state == State::Refused) {
            m_body += m_text;
            m_text.clear();
            if (m_body.size() > kMaxEventBytes)
                fail(QStringLiteral("the engine's answer is too large"));
        }
        if (!more)
            break;
    }
    return out;
}

void SseParser::finish()
{
    if (m_state == State::Head)
        fail(QStringLiteral("the engine closed the connection before answering"));
    else if (m_state != State::Error)
        m_state = State::Ended;
}

bool SseParser::parseHead()
{
    const qsizetype end = m_in.indexOf("\r\n\r\n");
    if (end < 0) {
        if (m_in.size() > kMaxHeadBytes)
            fail(QStringLiteral("the answer's head is too large"));
        return false;
    }
    const QList<QByteArray> lines = m_in.first(end).split('\n');
    m_in.remove(0, end + 4);
    const QList<QByteArray> statusLine = lines.first().trimmed().split(' ');
    bool ok = false;
    m_status = statusLine.size() >= 2 && statusLine.first().startsWith("HTTP/1.") ? statusLine.at(1).toInt(&ok) : 0;
    if (!ok || m_status < 100 || m_status > 599) {
        fail(QStringLiteral("the answer has no valid status line"));
        return false;
    }
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray name = line.first(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "transfer-encoding")
            m_chunked = value.toLower() == "chunked";
        else if (name == "content-length")
            m_contentLength = value.toLongLong(&ok);
        if (name == "content-length" && (!ok || m_contentLength < 0)) {
            fail(QStringLiteral("the answer has an invalid Content-Length"));
            return false;
        }
    }
    m_state = m_status == 200 ? State::Events : State::Refused;
    if (m_state == State::Events && !m_chunked) {
        fail(QStringLiteral("the event stream is not chunked"));
        return false;
    }
    return true;
}

bool SseParser::unchunk()
{
    if (!m_chunked) {
        // A refusal under Content-Length (or until the connection closes).
        const qint64 n = m_contentLength < 0 ? m_in.size() : std::min<qint64>(m_in.size(), m_contentLength);
        m_text += m_in.first(n);
        m_in.remove(0, n);
        if (m_contentLength >= 0) {
            m_contentLength -= n;
            if (m_contentLength == 0) {
                m_body += m_text;
                m_text.clear();
                m_state = State::Ended;
            }
        }
        return false;
    }
    if (m_chunkLeft < 0) {
        const qsizetype eol = m_in.indexOf("\r\n");
        if (eol < 0) {
            if (m_in.size() > 64)
                fail(QStringLiteral("a chunk size line is too long"));
            return false;
        }
        QByteArray size = m_in.first(eol);
        if (const qsizetype semi = size.indexOf(';'); semi >= 0)
            size.truncate(semi); // chunk extensions: none of ours, ignored
        bool ok = false;
        const qint64 n = size.trimmed().toLongLong(&ok, 16);
        if (!ok || n < 0 || n > kMaxEventBytes) {
            fail(QStringLiteral("a chunk size is invalid"));
            return false;
        }
        m_in.remove(0, eol + 2);
        if (n == 0) {
            m_state = State::Ended; // trailers, if any, are not read
            return false;
        }
        m_chunkLeft = n;
    }
    if (m_chunkLeft > 0) {
        const qint64 take = std::min<qint64>(m_chunkLeft, m_in.size());
        m_text += m_in.first(take);
        m_in.remove(0, take);
        m_chunkLeft -= take;
        if (m_chunkLeft > 0)
            return false;
    }
    // 0: the CRLF after a chunk's data.
    if (m_in.size() < 2)
        return false;
    if (!m_in.startsWith("\r\n")) {
        fail(QStringLiteral("a chunk does not end with CRLF"));
        return false;
    }
    m_in.remove(0, 2);
    m_chunkLeft = -1;
    return true;
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
