// HTTP/1.1 messages as plain values: headers and what a route answers (HttpResponse), shared by
// the engine's server and the LocalAPI's clients. The request a route is handed is in
// httprequest.h (server side only: it carries the peer's address, from Qt Network).
#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonDocument>
#include <QList>
#include <QPair>
#include <QString>
#include <QVarLengthArray>

#include <cstring>

namespace isolation {

using HttpHeaders = QList<QPair<QByteArray, QByteArray>>;

// ASCII case-insensitive equality, as header names and tokens compare (no locale): the lengths
// first, then the bytes inline. QByteArrayView::compare(Qt::CaseInsensitive) costs a call into
// Qt that reads both whole, and the doorman asks this a few dozen times for every request.
inline bool equalsNoCase(QByteArrayView a, QByteArrayView b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const unsigned char x = static_cast<unsigned char>(a[i]);
        const unsigned char y = static_cast<unsigned char>(b[i]);
        if (x != y) {
            const unsigned char lower = x | 0x20;
            if (lower != (y | 0x20) || lower < 'a' || lower > 'z')
                return false;
        }
    }
    return true;
}
// A header (or method) name against a literal, without case; the literal's length is known.
template<qsizetype N>
inline bool isNoCase(QByteArrayView a, const char (&literal)[N])
{
    return equalsNoCase(a, QByteArrayView(literal, N - 1));
}
inline bool startsWithNoCase(QByteArrayView a, QByteArrayView prefix)
{
    return a.size() >= prefix.size() && equalsNoCase(a.first(prefix.size()), prefix);
}

// Calls `each` with every piece of `list` between `separator`s, trimmed; stops when it returns true.
template<typename F>
bool anyPiece(QByteArrayView list, char separator, F each)
{
    qsizetype start = 0;
    while (start <= list.size()) {
        qsizetype end = list.indexOf(separator, start);
        if (end < 0)
            end = list.size();
        if (each(list.sliced(start, end - start).trimmed()))
            return true;
        start = end + 1;
    }
    return false;
}

// Whether a comma-separated header value (Connection, Upgrade) lists `token`, in any case.
inline bool hasToken(QByteArrayView list, QByteArrayView token)
{
    return anyPiece(list, ',', [&](QByteArrayView t) { return equalsNoCase(t, token); });
}

// Header lookup is case-insensitive; the first match wins.
QByteArray headerValue(const HttpHeaders &headers, QByteArrayView name);
bool hasHeader(const HttpHeaders &headers, QByteArrayView name);

// A header passed on as it is, without a copy: views into bytes that whoever hands it over keeps
// for the duration of the call (a proxy's answer heads, which go out as soon as they are in).
struct HeaderField
{
    QByteArrayView name;
    QByteArrayView value;
};
using HeaderFields = QVarLengthArray<HeaderField, 32>;

// A received header name as a QByteArray: the common ones (as HTTP/1.1 clients spell them, and
// in lower case as HTTP/2 has them) are shared, not allocated for every header of every message.
QByteArray sharedHeaderName(QByteArrayView name);
// The same in lower case (HTTP/2's spelling) for a name spelt in any case.
QByteArray sharedLowerHeaderName(QByteArrayView name);
// The same for a request method.
QByteArray sharedMethod(QByteArrayView method);

QByteArrayView fieldValue(const HeaderFields &fields, QByteArrayView name);

// The name and value of either kind of header, for code written once for both.
inline QByteArrayView nameOf(const QPair<QByteArray, QByteArray> &h)
{
    return h.first;
}
inline QByteArrayView valueOf(const QPair<QByteArray, QByteArray> &h)
{
    return h.second;
}
inline QByteArrayView nameOf(const HeaderField &h)
{
    return h.name;
}
inline QByteArrayView valueOf(const HeaderField &h)
{
    return h.value;
}

// Views of `headers` (valid while it is) and an owned copy of `fields`.
HeaderFields fieldsOf(const HttpHeaders &headers);
HttpHeaders headersOf(const HeaderFields &fields);

struct HttpResponse
{
    int status = 200;
    HttpHeaders headers;
    QByteArray body;

    HttpResponse &setHeader(const QByteArray &name, const QByteArray &value);
    // "Connection: close" makes the server close the connection after this answer.
    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }

    static HttpResponse json(int status, const QJsonObject &object);
    static HttpResponse json(int status, const QJsonArray &array);
    static HttpResponse text(
        int status, const QByteArray &body, const QByteArray &contentType = "text/plain; charset=utf-8");
    // The protocol's error body: {"error": {"code": CODE, "message": MESSAGE}} (docs/protocol.md).
    static HttpResponse error(int status, const QString &code, const QString &message);
};

QByteArray reasonPhrase(int status);

// RFC 9110: a token (a header name, a method): one or more of ALPHA DIGIT !#$%&'*+-.^_`|~.
bool isHttpToken(QByteArrayView name);
// A field value's bytes: none of the control characters but HTAB (no NUL, CR, LF, DEL).
bool hasControlBytes(QByteArrayView value);

// Appends `n` in decimal (base 16 when asked), without the temporary QByteArray::number() makes.
void appendNumber(QByteArray &out, qint64 n, int base = 10);

// Writes a message head (or any run of small pieces) onto the end of `out` with one allocation
// at most: room for `expected` bytes is made up front (more if a piece does not fit) and pieces
// are copied in without QByteArray::append()'s checks on each; `out` is cut to what was written
// when the writer goes. Nothing else may touch `out` while the writer lives.
class HeadWriter
{
public:
    HeadWriter(QByteArray &out, qsizetype expected);
    ~HeadWriter();
    HeadWriter(const HeadWriter &) = delete;
    HeadWriter &operator=(const HeadWriter &) = delete;

    HeadWriter &operator<<(QByteArrayView piece)
    {
        if (piece.isEmpty())
            return *this; // may have no data pointer at all, which memcpy must not see
        if (m_end - m_at < piece.size())
            grow(piece.size());
        std::memcpy(m_at, piece.data(), size_t(piece.size()));
        m_at += piece.size();
        return *this;
    }
    HeadWriter &operator<<(char c)
    {
        if (m_at == m_end)
            grow(1);
        *m_at++ = c;
        return *this;
    }
    HeadWriter &number(qint64 n, int base = 10);

private:
    void grow(qsizetype more);

    QByteArray &m_out;
    char *m_at;
    char *m_end;
};

} // namespace isolation
