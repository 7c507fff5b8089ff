#include "httprequestparser.h"

#include "llhttpresult.h"

#include <QUrl>

#include <cstring>

namespace isolation {

namespace {

HttpRequestParser *self(llhttp_t *p)
{
    return static_cast<HttpRequestParser *>(p->data);
}

// Field by field: a fresh HttpRequest would allocate (QHostAddress's default constructor does),
// and the connection sets the peer itself.
void clearRequest(HttpRequest &r)
{
    r.method.clear();
    r.target.clear();
    r.path.clear();
    r.query.clear();
    r.headers.clear();
    r.body.clear();
    r.params.clear();
}

} // namespace

HttpRequestParser::HttpRequestParser(Limits limits)
    : m_limits(limits)
{
    llhttp_settings_init(&m_settings);
    m_settings.on_message_begin = &HttpRequestParser::onMessageBegin;
    m_settings.on_url = &HttpRequestParser::onUrl;
    m_settings.on_header_field = &HttpRequestParser::onHeaderField;
    m_settings.on_header_value = &HttpRequestParser::onHeaderValue;
    m_settings.on_headers_complete = &HttpRequestParser::onHeadersComplete;
    m_settings.on_body = &HttpRequestParser::onBody;
    m_settings.on_message_complete = &HttpRequestParser::onMessageComplete;
    llhttp_init(&m_parser, HTTP_REQUEST, &m_settings);
    m_parser.data = this;
}

qsizetype HttpRequestParser::feed(const char *data, qsizetype size)
{
    if (m_state != State::NeedMore || size <= 0)
        return 0;
    if (!m_headersDone) {
        // Keep the raw head (bounded by the header limit) to recognise obs-fold line continuations.
        const qsizetype room = m_limits.maxHeaderBytes + 4 - m_raw.size();
        if (room > 0)
            m_raw.append(data, std::min(room, size));
    }
    const llhttp_errno_t err = llhttp_execute(&m_parser, data, size_t(size));
    // Up to where it stopped: the end, or after a pause (the end of a request) or an error.
    const qsizetype n = llhttpTaken(&m_parser, err, data, size);
    if (m_state == State::Error)
        return n;
    if (err == HPE_PAUSED) { // onMessageComplete: one request at a time
        llhttp_resume(&m_parser);
        return n;
    }
    if (err == HPE_PAUSED_UPGRADE) { // what follows the head belongs to the new protocol
        m_state = State::Upgrade;
        return n;
    }
    if (err != HPE_OK)
        fail(400, llhttpWhy(&m_parser, err));
    return n;
}

void HttpRequestParser::finish()
{
    if (m_state == State::NeedMore)
        llhttp_finish(&m_parser);
}

HttpRequest HttpRequestParser::takeRequest()
{
    HttpRequest r = std::move(m_request);
    clearRequest(m_request);
    m_bodySink = nullptr;
    m_raw.truncate(0); // its memory serves the next request
    m_inValue = false;
    m_headersDone = false;
    m_headerBytes = 0;
    if (m_state == State::Complete)
        m_state = State::NeedMore;
    return r;
}

int HttpRequestParser::fail(int status, const QString &message)
{
    if (m_state != State::Error) {
        m_state = State::Error;
        m_errorStatus = status;
        m_errorMessage = message;
        m_keepAlive = false;
    }
    return -1;
}

bool HttpRequestParser::countHeaderBytes(size_t len)
{
    m_headerBytes += qsizetype(len);
    if (m_headerBytes > m_limits.maxHeaderBytes) {
        fail(431, QStringLiteral("request header fields too large"));
        return false;
    }
    return true;
}

int HttpRequestParser::onMessageBegin(llhttp_t *p)
{
    auto *s = self(p);
    clearRequest(s->m_request);
    s->m_bodySink = nullptr;
    s->m_inValue = false;
    s->m_headersDone = false;
    return 0;
}

int HttpRequestParser::onUrl(llhttp_t *p, const char *at, size_t len)
{
    auto *s = self(p);
    if (!s->countHeaderBytes(len))
        return -1;
    s->m_request.target.append(at, qsizetype(len));
    return 0;
}

int HttpRequestParser::onHeaderField(llhttp_t *p, const char *at, size_t len)
{
    auto *s = self(p);
    if (!s->countHeaderBytes(len))
        return -1;
    if (s->m_inValue || s->m_request.headers.isEmpty()) {
        if (s->m_request.headers.size() >= s->m_limits.maxHeaderCount)
            return s->fail(431, QStringLiteral("too many header fields"));
        if (s->m_request.headers.isEmpty())
            s->m_request.headers.reserve(16);
        s->m_request.headers.append(
            QPair<QByteArray, QByteArray>(sharedHeaderName(QByteArrayView(at, qsizetype(len))), QByteArray()));
        s->m_inValue = false;
        return 0;
    }
    s->m_request.headers.last().first.append(at, qsizetype(len)); // a name split across reads
    return 0;
}

int HttpRequestParser::onHeaderValue(llhttp_t *p, const char *at, size_t len)
{
    auto *s = self(p);
    if (!s->countHeaderBytes(len))
        return -1;
    s->m_inValue = true;
    if (!s->m_request.headers.isEmpty())
        s->m_request.headers.last().second.append(at, qsizetype(len));
    return 0;
}

int HttpRequestParser::validateHeaders()
{
    // obs-fold: a header line that starts with a space or tab inside the head.
    qsizetype start = 0;
    while (start + 2 <= m_raw.size() && m_raw[start] == '\r' && m_raw[start + 1] == '\n') // empty lines before the request line are allowed
        start += 2;
    // One pass over the line ends up to the end of the head (the first line end followed by an
    // empty line). A bare LF or CR as a line end (llhttp tolerates them) makes framing
    // ambiguous for other hops; a line that starts with a space or tab is obs-fold.
    const char *const begin = m_raw.constData() + start;
    const char *end = m_raw.constData() + m_raw.size();
    for (const char *p = begin; p < end; ++p) {
        p = static_cast<const char *>(std::memchr(p, '\n', size_t(end - p)));
        if (!p)
            break;
        if (p == begin || p[-1] != '\r')
            return fail(400, QStringLiteral("bare LF in the request head"));
        if (p + 1 < end && (p[1] == ' ' || p[1] == '\t'))
            return fail(400, QStringLiteral("obsolete line folding is not accepted"));
        if (end - p >= 3 && p[1] == '\r' && p[2] == '\n') {
            end = p + 1; // the head's last line ends here
            break;
        }
    }
    // Every CR must be followed by LF.
    for (const char *p = begin; p < end; p += 2) {
        p = static_cast<const char *>(std::memchr(p, '\r', size_t(end - p)));
        if (!p)
            break;
        if (p + 1 == end || p[1] != '\n')
            return fail(400, QStringLiteral("bare CR in the request head"));
    }

    int contentLengths = 0;
    int transferEncodings = 0;
    int hosts = 0;
    for (auto &h : m_request.headers) {
        h.second = h.second.trimmed();
        if (!isHttpToken(h.first))
            return fail(400, QStringLiteral("invalid header name"));
        if (hasControlBytes(h.second)) // a token (the name) has none
            return fail(400, QStringLiteral("control character in header %1").arg(QString::fromLatin1(h.first)));
        if (equalsNoCase(h.first, "content-length"))
            ++contentLengths;
        if (equalsNoCase(h.first, "host"))
            ++hosts;
        if (equalsNoCase(h.first, "transfer-encoding")) {
            ++transferEncodings;
            if (h.second.toLower() != "chunked")
                return fail(400, QStringLiteral("only the chunked transfer coding is accepted"));
        }
    }
    if (contentLengths > 1)
        return fail(400, QStringLiteral("more than one Content-Length"));
    if (hosts > 1)
        return fail(400, QStringLiteral("more than one Host"));
    if (transferEncodings > 1)
        return fail(400, QStringLiteral("more than one Transfer-Encoding"));
    if (contentLengths && transferEncodings)
        return fail(400, QStringLiteral("Content-Length together with Transfer-Encoding"));
    return 0;
}

int HttpRequestParser::onHeadersComplete(llhttp_t *p)
{
    auto *s = self(p);
    s->m_headersDone = true;
    if (s->validateHeaders() != 0)
        return -1;

    HttpRequest &r = s->m_request;
    r.method = sharedMethod(llhttp_method_name(static_cast<llhttp_method_t>(p->method)));
    if (r.target.isEmpty() || r.target.at(0) != '/') {
        // origin-form only; absolute-form and authority-form are for proxies, which we are not.
        if (!(r.method == "OPTIONS" && r.target == "*"))
            return s->fail(400, QStringLiteral("request target must be a path"));
    }
    if (s->m_limits.decodeTarget) {
        const QUrl url = QUrl::fromEncoded(r.target, QUrl::StrictMode);
        if (!url.isValid() || !url.host().isEmpty())
            return s->fail(400, QStringLiteral("malformed request target"));
        r.path = url.path(QUrl::FullyDecoded);
        r.query = QUrlQuery(url.query(QUrl::FullyEncoded));
    }

    if (s->onHeaders)
        s->onHeaders(r);
    if (!s->m_bodySink && (p->flags & F_CONTENT_LENGTH) && p->content_length > quint64(s->m_limits.maxBodyBytes))
        return s->fail(413, QStringLiteral("request body larger than the limit of %1 bytes").arg(s->m_limits.maxBodyBytes));
    return 0;
}

int HttpRequestParser::onBody(llhttp_t *p, const char *at, size_t len)
{
    auto *s = self(p);
    if (s->m_bodySink) {
        if (!s->m_bodySink(QByteArrayView(at, qsizetype(len))))
            return s->fail(413, QStringLiteral("request body refused"));
        return 0;
    }
    if (s->m_request.body.size() + qint64(len) > s->m_limits.maxBodyBytes)
        return s->fail(413, QStringLiteral("request body larger than the limit of %1 bytes").arg(s->m_limits.maxBodyBytes));
    s->m_request.body.append(at, qsizetype(len));
    return 0;
}

int HttpRequestParser::onMessageComplete(llhttp_t *p)
{
    auto *s = self(p);
    s->m_keepAlive = llhttp_should_keep_alive(p) != 0;
    s->m_state = p->upgrade ? State::Upgrade : State::Complete;
    return HPE_PAUSED; // feed() stops after this request
}

} // namespace isolation
