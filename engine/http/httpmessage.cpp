#include "httpmessage.h"

#include <QJsonArray>
#include <charconv>
#include <QJsonObject>

namespace isolation {

QByteArray headerValue(const HttpHeaders &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (equalsNoCase(name, h.first))
            return h.second;
    }
    return {};
}

bool hasHeader(const HttpHeaders &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (equalsNoCase(name, h.first))
            return true;
    }
    return false;
}

namespace {

// Names by length, each in its usual spelling and in lower case.
class NameTable
{
public:
    explicit NameTable(std::initializer_list<const char *> names, bool lowerToo)
    {
        for (const char *n : names) {
            add(QByteArray(n));
            if (lowerToo)
                add(QByteArray(n).toLower());
        }
    }
    QByteArray find(QByteArrayView name) const
    {
        if (name.size() < kLongest) {
            for (const QByteArray &c : m_byLength[name.size()]) {
                if (std::memcmp(c.constData(), name.data(), size_t(name.size())) == 0)
                    return c;
            }
        }
        return name.toByteArray();
    }
    // Among the lower-case entries, whatever the case of `name`.
    QByteArray findLower(QByteArrayView name) const
    {
        if (name.size() < kLongest) {
            for (const QByteArray &c : m_byLength[name.size()]) {
                if (sameLower(c, name))
                    return c;
            }
        }
        return name.toByteArray().toLower();
    }

private:
    void add(const QByteArray &name)
    {
        if (name.size() < kLongest && !m_byLength[name.size()].contains(name))
            m_byLength[name.size()].append(name);
    }
    static bool sameLower(QByteArrayView lower, QByteArrayView name)
    {
        for (qsizetype i = 0; i < name.size(); ++i) {
            const char c = name[i];
            if (lower[i] != ((c >= 'A' && c <= 'Z') ? char(c + 32) : c))
                return false;
        }
        return true;
    }
    static constexpr qsizetype kLongest = 32;
    QVarLengthArray<QByteArray, 4> m_byLength[kLongest];
};

} // namespace

static const NameTable &headerNames()
{
    static const NameTable names({"Accept", "Accept-Encoding", "Accept-Language", "Accept-Ranges", "Authorization",
                                     "Cache-Control", "Connection", "Content-Encoding", "Content-Length",
                                     "Content-Type", "Cookie", "Date", "DNT", "ETag", "Expect", "Host",
                                     "If-Modified-Since", "If-None-Match", "Last-Modified", "Location", "Origin",
                                     "Pragma", "Priority", "Range", "Referer", "Referrer-Policy", "Sec-Fetch-Dest",
                                     "Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-User", "Sec-WebSocket-Extensions",
                                     "Sec-WebSocket-Key", "Sec-WebSocket-Protocol", "Sec-WebSocket-Version",
                                     "sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "Server", "Set-Cookie",
                                     "Transfer-Encoding", "Upgrade", "Upgrade-Insecure-Requests", "User-Agent", "Vary",
                                     "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Requested-With"},
        true);
    return names;
}

QByteArray sharedHeaderName(QByteArrayView name)
{
    return headerNames().find(name);
}

QByteArray sharedLowerHeaderName(QByteArrayView name)
{
    return headerNames().findLower(name);
}

QByteArray sharedMethod(QByteArrayView method)
{
    static const NameTable methods({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT"}, false);
    return methods.find(method);
}

QByteArrayView fieldValue(const HeaderFields &fields, QByteArrayView name)
{
    for (const HeaderField &f : fields) {
        if (equalsNoCase(name, f.name))
            return f.value;
    }
    return {};
}


HeaderFields fieldsOf(const HttpHeaders &headers)
{
    HeaderFields out;
    for (const auto &h : headers)
        out.append({h.first, h.second});
    return out;
}

HttpHeaders headersOf(const HeaderFields &fields)
{
    HttpHeaders out;
    out.reserve(fields.size());
    for (const HeaderField &f : fields)
        out.append(qMakePair(f.name.toByteArray(), f.value.toByteArray()));
    return out;
}



HttpResponse &HttpResponse::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &h : headers) {
        if (equalsNoCase(name, h.first)) {
            h.second = value;
            return *this;
        }
    }
    headers.append({name, value});
    return *this;
}

HttpResponse HttpResponse::json(int status, const QJsonObject &object)
{
    HttpResponse r;
    r.status = status;
    r.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    r.setHeader("Content-Type", "application/json");
    return r;
}

HttpResponse HttpResponse::json(int status, const QJsonArray &array)
{
    HttpResponse r;
    r.status = status;
    r.body = QJsonDocument(array).toJson(QJsonDocument::Compact);
    r.setHeader("Content-Type", "application/json");
    return r;
}

HttpResponse HttpResponse::text(int status, const QByteArray &body, const QByteArray &contentType)
{
    HttpResponse r;
    r.status = status;
    r.body = body;
    r.setHeader("Content-Type", contentType);
    return r;
}

HttpResponse HttpResponse::error(int status, const QString &code, const QString &message)
{
    return json(status,
        QJsonObject {{QStringLiteral("error"),
            QJsonObject {{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}});
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return QByteArrayLiteral("Continue");
    case 101:
        return QByteArrayLiteral("Switching Protocols");
    case 200:
        return QByteArrayLiteral("OK");
    case 201:
        return QByteArrayLiteral("Created");
    case 202:
        return QByteArrayLiteral("Accepted");
    case 204:
        return QByteArrayLiteral("No Content");
    case 301:
        return QByteArrayLiteral("Moved Permanently");
    case 302:
        return QByteArrayLiteral("Found");
    case 303:
        return QByteArrayLiteral("See Other");
    case 304:
        return QByteArrayLiteral("Not Modified");
    case 307:
        return QByteArrayLiteral("Temporary Redirect");
    case 400:
        return QByteArrayLiteral("Bad Request");
    case 401:
        return QByteArrayLiteral("Unauthorized");
    case 403:
        return QByteArrayLiteral("Forbidden");
    case 404:
        return QByteArrayLiteral("Not Found");
    case 405:
        return QByteArrayLiteral("Method Not Allowed");
    case 408:
        return QByteArrayLiteral("Request Timeout");
    case 409:
        return QByteArrayLiteral("Conflict");
    case 410:
        return QByteArrayLiteral("Gone");
    case 411:
        return QByteArrayLiteral("Length Required");
    case 412:
        return QByteArrayLiteral("Precondition Failed");
    case 413:
        return QByteArrayLiteral("Content Too Large");
    case 414:
        return QByteArrayLiteral("URI Too Long");
    case 415:
        return QByteArrayLiteral("Unsupported Media Type");
    case 422:
        return QByteArrayLiteral("Unprocessable Content");
    case 428:
        return QByteArrayLiteral("Precondition Required");
    case 429:
        return QByteArrayLiteral("Too Many Requests");
    case 431:
        return QByteArrayLiteral("Request Header Fields Too Large");
    case 500:
        return QByteArrayLiteral("Internal Server Error");
    case 501:
        return QByteArrayLiteral("Not Implemented");
    case 502:
        return QByteArrayLiteral("Bad Gateway");
    case 503:
        return QByteArrayLiteral("Service Unavailable");
    case 504:
        return QByteArrayLiteral("Gateway Timeout");
    case 507:
        return QByteArrayLiteral("Insufficient Storage");
    default:
        return QByteArrayLiteral("Status");
    }
}

namespace {

struct ByteClasses
{
    bool token[256] {};
    bool control[256] {};
    constexpr ByteClasses()
    {
        for (int c = 0; c < 256; ++c) {
            token[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            control[c] = (c < 0x20 && c != '\t') || c == 0x7f;
        }
        for (char c : QByteArrayView("!#$%&'*+-.^_`|~"))
            token[static_cast<unsigned char>(c)] = true;
    }
};
constexpr ByteClasses kBytes;

} // namespace

bool isHttpToken(QByteArrayView name)
{
    for (char c : name) {
        if (!kBytes.token[static_cast<unsigned char>(c)])
            return false;
    }
    return !name.isEmpty();
}

bool hasControlBytes(QByteArrayView value)
{
    // Eight bytes at a time: a word with any byte below 0x20 or equal to 0x7F (the classic "has a
    // byte less than n" test; exact, no borrow without such a byte) is looked at byte by byte,
    // since HTAB is allowed.
    constexpr quint64 ones = 0x0101010101010101ULL;
    constexpr quint64 highs = 0x8080808080808080ULL;
    const char *p = value.data();
    qsizetype left = value.size();
    for (; left >= 8; p += 8, left -= 8) {
        quint64 x;
        std::memcpy(&x, p, 8);
        const quint64 del = x ^ (ones * 0x7f);
        if ((((x - ones * 0x20) & ~x) | ((del - ones) & ~del)) & highs) {
            for (int i = 0; i < 8; ++i) {
                if (kBytes.control[static_cast<unsigned char>(p[i])])
                    return true;
            }
        }
    }
    for (; left > 0; ++p, --left) {
        if (kBytes.control[static_cast<unsigned char>(*p)])
            return true;
    }
    return false;
}

void appendNumber(QByteArray &out, qint64 n, int base)
{
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, n, base);
    out.append(digits, r.ptr - digits);
}

HeadWriter::HeadWriter(QByteArray &out, qsizetype expected)
    : m_out(out)
{
    const qsizetype start = out.size();
    out.resize(start + expected);
    m_at = out.data() + start;
    m_end = out.data() + out.size();
}

HeadWriter::~HeadWriter()
{
    m_out.resize(m_at - m_out.data());
}

HeadWriter &HeadWriter::number(qint64 n, int base)
{
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, n, base);
    return *this << QByteArrayView(digits, r.ptr - digits);
}

void HeadWriter::grow(qsizetype more)
{
    const qsizetype used = m_at - m_out.data();
    m_out.resize(std::max(m_out.size() * 2, used + more + 256));
    m_at = m_out.data() + used;
    m_end = m_out.data() + m_out.size();
}

} // namespace isolation
