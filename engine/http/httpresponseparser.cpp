#include "httpresponseparser.h"

#include "llhttpresult.h"

namespace isolation {

namespace {

HttpResponseParser *self(llhttp_t *p)
{
    return static_cast<HttpResponseParser *>(p->data);
}

} // namespace

HttpResponseParser::HttpResponseParser(bool noBody, qint64 maxBodyBytes)
    : m_noBody(noBody)
    , m_maxBodyBytes(maxBodyBytes)
{
    llhttp_settings_init(&m_settings);
    m_settings.on_status = &HttpResponseParser::onStatus;
    m_settings.on_header_field = &HttpResponseParser::onHeaderField;
    m_settings.on_header_value = &HttpResponseParser::onHeaderValue;
    m_settings.on_headers_complete = &HttpResponseParser::onHeadersComplete;
    m_settings.on_body = &HttpResponseParser::onBody;
    m_settings.on_message_complete = &HttpResponseParser::onMessageComplete;
    llhttp_init(&m_parser, HTTP_RESPONSE, &m_settings);
    m_parser.data = this;
}

int HttpResponseParser::fail(const QString &why)
{
    m_state = State::Error;
    m_error = why;
    return -1;
}

bool HttpResponseParser::countHeadBytes(size_t len)
{
    m_headBytes += qsizetype(len);
    if (m_headBytes <= kMaxHeadBytes)
        return true;
    fail(QStringLiteral("the answer's head is too large"));
    return false;
}

int HttpResponseParser::onStatus(llhttp_t *p, const char *, size_t len)
{
    return self(p)->countHeadBytes(len) ? 0 : -1;
}

int HttpResponseParser::onHeaderField(llhttp_t *p, const char *at, size_t len)
{
    HttpResponseParser *s = self(p);
    if (!s->countHeadBytes(len))
        return -1;
    // llhttp may hand a name over in pieces (split across reads): a new header starts after a value.
    if (s->m_response.headers.isEmpty() || s->m_inValue) {
        if (s->m_response.headers.size() >= kMaxHeaderCount)
            return s->fail(QStringLiteral("the answer has too many headers"));
        s->m_response.headers.emplaceBack();
        s->m_inValue = false;
    }
    s->m_response.headers.last().first.append(at, qsizetype(len));
    return 0;
}

int HttpResponseParser::onHeaderValue(llhttp_t *p, const char *at, size_t len)
{
    HttpResponseParser *s = self(p);
    if (!s->countHeadBytes(len))
        return -1;
    s->m_inValue = true;
    s->m_response.headers.last().second.append(at, qsizetype(len));
    return 0;
}

int HttpResponseParser::onHeadersComplete(llhttp_t *p)
{
    HttpResponseParser *s = self(p);
    s->m_response.status = int(llhttp_get_status_code(p));
    // 1 tells llhttp the answer has no body whatever its head says.
    return s->m_noBody ? 1 : 0;
}

int HttpResponseParser::onBody(llhttp_t *p, const char *at, size_t len)
{
    HttpResponseParser *s = self(p);
    if (s->m_response.body.size() + qint64(len) > s->m_maxBodyBytes)
        return s->fail(QStringLiteral("the answer's body is too large"));
    s->m_response.body.append(at, qsizetype(len));
    return 0;
}

int HttpResponseParser::onMessageComplete(llhttp_t *p)
{
    HttpResponseParser *s = self(p);
    const int status = s->m_response.status;
    if (status >= 100 && status < 200 && status != 101) {
        // An interim answer (100 Continue, 103 Early Hints): the real one follows.
        s->m_response = {};
        s->m_headBytes = 0;
        s->m_inValue = false;
        return 0;
    }
    s->m_state = State::Complete;
    return HPE_PAUSED; // nothing after the answer is ours
}

void HttpResponseParser::feed(QByteArrayView bytes)
{
    if (m_state != State::NeedMore || bytes.isEmpty())
        return;
    const llhttp_errno_t err = llhttp_execute(&m_parser, bytes.data(), size_t(bytes.size()));
    if (m_state != State::NeedMore)
        return; // complete (paused, or an upgrade's pause), or failed in a callback
    if (err != HPE_OK)
        fail(QStringLiteral("the answer is not valid HTTP: %1").arg(llhttpWhy(&m_parser, err)));
}

void HttpResponseParser::finish()
{
    if (m_state != State::NeedMore)
        return;
    const llhttp_errno_t err = llhttp_finish(&m_parser);
    if (m_state != State::NeedMore)
        return;
    if (err != HPE_OK)
        fail(QStringLiteral("the connection closed in the middle of the answer"));
    else
        fail(QStringLiteral("the connection closed before an answer came"));
}

} // namespace isolation
