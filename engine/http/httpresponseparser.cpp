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
    : HttpResponseParser(Options {.noBody = noBody, .maxBodyBytes = maxBodyBytes})
{ }

HttpResponseParser::HttpResponseParser(Options options)
    : m_options(options)
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
    m_response.status = 0; // no status until a head says one
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
    if (m_headBytes <= m_options.maxHeadBytes)
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
    const int status = int(llhttp_get_status_code(p));
    s->m_response.status = status;
    if (status >= 100 && status < 200 && status != 101) {
        if (s->m_options.interimIsError)
            return s->fail(
                QStringLiteral("the answer has the status %1, an interim answer nothing asked for").arg(status));
        return 0; // an interim answer (100 Continue, 103 Early Hints): onMessageComplete forgets it
    }
    if (s->m_onHead) {
        if (const QString why = s->m_onHead(s->m_response, (p->flags & F_CHUNKED) != 0); !why.isEmpty())
            return s->fail(why);
    }
    if (status == 101) {
        s->m_upgraded = true;
        return 2; // no body, and what follows the head is the new protocol's
    }
    // 1 tells llhttp the answer has no body whatever its head says.
    return s->m_options.noBody || s->m_options.stopAtHead ? 1 : 0;
}

int HttpResponseParser::onBody(llhttp_t *p, const char *at, size_t len)
{
    HttpResponseParser *s = self(p);
    s->m_bodyBytes += qint64(len);
    if (s->m_bodyBytes > s->m_options.maxBodyBytes)
        return s->fail(QStringLiteral("the answer's body is too large"));
    if (!s->m_bodySink) {
        s->m_response.body.append(at, qsizetype(len));
        return 0;
    }
    if (const QString why = s->m_bodySink(QByteArrayView(at, qsizetype(len))); !why.isEmpty())
        return s->fail(why);
    return 0;
}

int HttpResponseParser::onMessageComplete(llhttp_t *p)
{
    HttpResponseParser *s = self(p);
    const int status = s->m_response.status;
    if (status >= 100 && status < 200 && status != 101) {
        // An interim answer (100 Continue, 103 Early Hints): the real one follows.
        s->m_response = {};
        s->m_response.status = 0;
        s->m_headBytes = 0;
        s->m_inValue = false;
        return 0;
    }
    s->m_state = State::Complete;
    if (s->m_upgraded)
        return 0; // llhttp pauses after a 101's head by itself (HPE_PAUSED_UPGRADE)
    return HPE_PAUSED; // nothing after the answer is ours
}

void HttpResponseParser::feed(QByteArrayView bytes)
{
    if (m_state != State::NeedMore || bytes.isEmpty())
        return;
    const llhttp_errno_t err = llhttp_execute(&m_parser, bytes.data(), size_t(bytes.size()));
    if (m_state == State::Complete && m_upgraded) {
        // Paused right after the 101's head: the rest is the new protocol's.
        m_rest = bytes.sliced(llhttpTaken(&m_parser, err, bytes.data(), bytes.size())).toByteArray();
        return;
    }
    if (m_state != State::NeedMore)
        return; // complete (paused), or failed in a callback
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
