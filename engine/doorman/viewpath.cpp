#include "viewpath.h"

#include <QList>

namespace isolation {

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Decodes one path segment once. Refuses malformed escapes and bytes that would change how the
// path splits or reads: '/', '\', NUL and other control bytes, decoded or not.
std::optional<QByteArray> decodeSegment(QByteArrayView raw)
{
    QByteArray out;
    out.reserve(raw.size());
    for (qsizetype i = 0; i < raw.size(); ++i) {
        char c = raw[i];
        if (c == '%') {
            if (i + 2 >= raw.size())
                return std::nullopt;
            const int hi = hexValue(raw[i + 1]);
            const int lo = hexValue(raw[i + 2]);
            if (hi < 0 || lo < 0)
                return std::nullopt;
            c = char(hi * 16 + lo);
            i += 2;
        }
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || c == '/' || c == '\\')
            return std::nullopt;
        out.append(c);
    }
    return out;
}

bool keepAsIs(unsigned char c)
{
    // RFC 3986 pchar without '%': unreserved, sub-delims, ':' and '@'.
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || QByteArrayView("-._~!$&'()*+,;=:@").contains(char(c));
}

QByteArray encodeSegment(const QByteArray &segment)
{
    static const char hex[] = "0123456789ABCDEF";
    QByteArray out;
    out.reserve(segment.size());
    for (char c : segment) {
        const auto u = static_cast<unsigned char>(c);
        if (keepAsIs(u)) {
            out.append(c);
        } else {
            out.append('%');
            out.append(hex[u >> 4]);
            out.append(hex[u & 15]);
        }
    }
    return out;
}

// RFC 3986 remove_dot_segments on decoded segments; false when ".." would climb above the root.
bool resolveDots(const QList<QByteArray> &in, QList<QByteArray> *out, bool *trailingSlash)
{
    for (qsizetype i = 0; i < in.size(); ++i) {
        const QByteArray &s = in.at(i);
        const bool last = i + 1 == in.size();
        if (s == ".") {
            if (last)
                *trailingSlash = true;
            continue;
        }
        if (s == "..") {
            if (out->isEmpty())
                return false;
            out->removeLast();
            if (last)
                *trailingSlash = true;
            continue;
        }
        out->append(s);
    }
    return true;
}

// A path that is already what parse() would make of it: only characters written as they are, no
// empty, "." or ".." segment. Most requests; they skip the splitting and joining.
bool alreadyNormal(QByteArrayView path)
{
    qsizetype segmentStart = 1;
    for (qsizetype i = 1; i <= path.size(); ++i) {
        if (i < path.size() && path[i] != '/') {
            if (!keepAsIs(static_cast<unsigned char>(path[i])))
                return false;
            continue;
        }
        const QByteArrayView segment = path.sliced(segmentStart, i - segmentStart);
        const bool last = i == path.size();
        if ((segment.isEmpty() && !last) || segment == "." || segment == "..")
            return false;
        segmentStart = i + 1;
    }
    return true;
}

} // namespace

Result<ViewPath> ViewPath::parse(QByteArrayView target)
{
    if (target.isEmpty() || target.front() != '/' || target.startsWith("//"))
        return Error::invalidInput(QStringLiteral("the request target must be an absolute path"));
    for (char c : target) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f || c == '#' || c == '\\')
            return Error::invalidInput(QStringLiteral("the request target has a byte that is not allowed"));
    }
    const qsizetype q = target.indexOf('?');
    const QByteArrayView rawPath = q < 0 ? target : target.first(q);
    const QByteArrayView rawQuery = q < 0 ? QByteArrayView() : target.sliced(q + 1);
    if (rawQuery.isEmpty() && alreadyNormal(rawPath)) {
        ViewPath out;
        out.path = rawPath.toByteArray();
        out.decodedPath = out.path;
        return out;
    }

    // The raw path split on '/' only: an encoded slash never splits, and is refused when decoded.
    const QList<QByteArray> rawSegments = rawPath.sliced(1).toByteArray().split('/');
    QList<QByteArray> decoded;
    for (const QByteArray &raw : rawSegments) {
        auto d = decodeSegment(raw);
        if (!d)
            return Error::invalidInput(QStringLiteral("the request path has a malformed or forbidden escape"));
        decoded.append(*d);
    }
    bool trailingSlash = rawPath.endsWith('/') && rawPath.size() > 1;
    QList<QByteArray> resolved;
    // Empty segments ("a//b") are dropped: they mean nothing to a view and confuse scope checks.
    QList<QByteArray> nonEmpty;
    for (qsizetype i = 0; i < decoded.size(); ++i) {
        if (!decoded.at(i).isEmpty())
            nonEmpty.append(decoded.at(i));
    }
    if (!resolveDots(nonEmpty, &resolved, &trailingSlash))
        return Error::invalidInput(QStringLiteral("the request path leaves the view"));

    ViewPath out;
    out.path = "/";
    out.decodedPath = "/";
    for (qsizetype i = 0; i < resolved.size(); ++i) {
        if (i > 0) {
            out.path += '/';
            out.decodedPath += '/';
        }
        out.path += encodeSegment(resolved.at(i));
        out.decodedPath += resolved.at(i);
    }
    if (trailingSlash && !resolved.isEmpty()) {
        out.path += '/';
        out.decodedPath += '/';
    }

    // The query stays as sent, less the view token (which never travels further).
    QList<QByteArray> kept;
    int tokens = 0;
    for (const QByteArray &pair : rawQuery.toByteArray().split('&')) {
        if (pair.isEmpty())
            continue;
        const qsizetype eq = pair.indexOf('=');
        const QByteArray key = QByteArray::fromPercentEncoding(eq < 0 ? pair : pair.left(eq));
        if (key == TokenParameter) {
            ++tokens;
            out.token = QByteArray::fromPercentEncoding(eq < 0 ? QByteArray() : pair.mid(eq + 1));
            continue;
        }
        kept.append(pair);
    }
    if (tokens > 1)
        return Error::invalidInput(QStringLiteral("more than one view token"));
    out.query = kept.join('&');
    return out;
}

std::optional<QString> ViewPath::normaliseFilePath(const QString &path)
{
    if (!path.startsWith(QLatin1Char('/')))
        return std::nullopt;
    QList<QByteArray> segments;
    for (const QString &s : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        for (QChar c : s) {
            if (c.unicode() < 0x20 || c.unicode() == 0x7f || c == QLatin1Char('\\'))
                return std::nullopt;
        }
        segments.append(s.toUtf8());
    }
    QList<QByteArray> resolved;
    bool trailing = false;
    if (!resolveDots(segments, &resolved, &trailing))
        return std::nullopt;
    QString out;
    for (const QByteArray &s : resolved)
        out += QLatin1Char('/') + QString::fromUtf8(s);
    return out.isEmpty() ? QStringLiteral("/") : out;
}

} // namespace isolation
