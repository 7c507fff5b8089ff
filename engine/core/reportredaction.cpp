#include "reportredaction.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

#include <functional>

namespace isolation::reportredaction {

namespace {

// A shape rule's shortest run: base64 of 15 random bytes. Shorter runs with mixed case and digits
// are ordinary (identifiers, dates); every token the engine or the hub makes is longer (32 bytes).
constexpr qsizetype kMinTokenChars = 20;

QString replaceEach(const QString &text, const QRegularExpression &re,
    const std::function<QString(const QRegularExpressionMatch &)> &by)
{
    QString out;
    qsizetype last = 0;
    auto it = re.globalMatch(text);
    if (!it.hasNext())
        return text;
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(text).mid(last, m.capturedStart() - last);
        out += by(m);
        last = m.capturedEnd();
    }
    out += QStringView(text).mid(last);
    return out;
}

// Each value whose key names a secret replaced (quotes kept); the scan goes on after the separator
// of any other key, so what its value holds is still looked at.
QString redactSecretValues(const QString &text, const QRegularExpression &keyValue)
{
    QString out;
    qsizetype pos = 0;
    while (pos < text.size()) {
        const QRegularExpressionMatch m = keyValue.match(text, pos);
        if (!m.hasMatch())
            break;
        out += QStringView(text).mid(pos, m.capturedEnd(2) - pos);
        pos = m.capturedEnd(2);
        // A log line's category ("isolation.secrets: session s1: ...") is not a key.
        if (!isSecretName(m.capturedView(1)) || m.capturedView(1).startsWith(u"isolation."))
            continue;
        const QStringView value = m.capturedView(3);
        const bool quoted = value.size() >= 2 && (value.front() == u'"' || value.front() == u'\'');
        if (quoted)
            out += value.front();
        out += Redacted;
        if (quoted)
            out += value.front();
        pos = m.capturedEnd(3);
    }
    out += QStringView(text).mid(pos);
    return out;
}

bool looksRandom(QStringView run)
{
    if (run.size() < kMinTokenChars)
        return false;
    bool upper = false;
    bool lower = false;
    bool digit = false;
    for (const QChar c : run) {
        upper = upper || (c >= u'A' && c <= u'Z');
        lower = lower || (c >= u'a' && c <= u'z');
        digit = digit || (c >= u'0' && c <= u'9');
    }
    return upper && lower && digit;
}

} // namespace

bool isSecretName(QStringView name)
{
    QString folded;
    folded.reserve(name.size());
    for (const QChar c : name) {
        if (c.isLetterOrNumber())
            folded += c.toLower();
    }
    if (folded == QLatin1String("isolationview") || folded == QLatin1String("hostisolationview"))
        return true;
    static const char *const suffixes[]
        = {"token", "secret", "password", "passwd", "credential", "apikey", "privatekey", "accesskey", "memberkey",
            "key", "cookie", "authorization", "signature", "nonce", "devicecode", "usercode"};
    for (const char *suffix : suffixes) {
        const QLatin1String s(suffix);
        if (folded.endsWith(s) || folded.endsWith(s + QLatin1Char('s')))
            return true;
    }
    return false;
}

QString redactText(const QString &text)
{
    static const QRegularExpression pem(
        QStringLiteral("-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)"),
        QRegularExpression::DotMatchesEverythingOption);
    static const QRegularExpression header(
        QStringLiteral(
            "\\b(Proxy-Authorization|Authorization|Set-Cookie|Cookie|X-Isolation-Signature|X-Isolation-Nonce)"
            "([ \\t]*:[ \\t]*)[^\\r\\n]*"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression scheme(QStringLiteral("\\b([Bb]earer|BEARER|Basic)([ \\t]+)[A-Za-z0-9._~+/=-]+"));
    static const QRegularExpression userInfo(QStringLiteral("\\b([A-Za-z][A-Za-z0-9+.-]*://)[^/\\s@\"'<>]+@"));
    // A key, what separates it from its value (a closing quote, '=' or ':'), and (looked at, not
    // taken: a key that names no secret leaves its value to the rules, "https://h/?token=...") the
    // value: a quoted string (escapes included) or everything up to a space or a separator.
    static const QRegularExpression keyValue(
        QStringLiteral("(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)(\"?[ \\t]*[:=][ "
                       "\\t]*)(?=(\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'|[^\\s\"',;&)<>]+))"));
    // '=' (base64's padding) is not in a run: it would join a key to its value.
    static const QRegularExpression run(QStringLiteral("[A-Za-z0-9_+-]+"));

    QString out = text;
    out = replaceEach(
        out, pem, [](const QRegularExpressionMatch &) -> QString { return QStringLiteral("[redacted private key]"); });
    out = replaceEach(out, header, [](const QRegularExpressionMatch &m) -> QString {
        return m.captured(1) + m.captured(2) + Redacted.toString();
    });
    out = replaceEach(out, scheme, [](const QRegularExpressionMatch &m) -> QString {
        return m.captured(1) + m.captured(2) + Redacted.toString();
    });
    out = replaceEach(out, userInfo,
        [](const QRegularExpressionMatch &m) -> QString { return m.captured(1) + Redacted.toString() + u'@'; });
    out = redactSecretValues(out, keyValue);
    out = replaceEach(out, run, [](const QRegularExpressionMatch &m) -> QString {
        return looksRandom(m.capturedView(0)) ? Redacted.toString() : m.captured(0);
    });
    return out;
}

QJsonValue redactJson(const QJsonValue &value)
{
    if (value.isString())
        return redactText(value.toString());
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue v : value.toArray())
            out.append(redactJson(v));
        return out;
    }
    if (value.isObject()) {
        QJsonObject out;
        const QJsonObject in = value.toObject();
        for (auto it = in.begin(); it != in.end(); ++it)
            out.insert(it.key(), isSecretName(it.key()) ? QJsonValue(Redacted.toString()) : redactJson(it.value()));
        return out;
    }
    return value;
}

} // namespace isolation::reportredaction
