#include "viewtoken.h"

#include "core/base64url.h"
#include "crypto/ed25519.h"
#include "crypto/random.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace isolation {

namespace {

constexpr qsizetype kNonceBytes = 16;

ViewTokenError invalid(const QString &why)
{
    return {ViewTokenError::Code::Invalid, why};
}

// Strict base64url without padding: only the alphabet, and the canonical encoding of what it
// decodes to (no stray bits), so one value has exactly one spelling.
std::optional<QByteArray> decodeB64(QByteArrayView text)
{
    for (char c : text) {
        const bool ok
            = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok)
            return std::nullopt;
    }
    auto decoded
        = QByteArray::fromBase64Encoding(text.toByteArray(), kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.toBase64(kBase64Url) != text)
        return std::nullopt;
    return decoded.decoded;
}

bool isIdentifier(const QString &id, qsizetype maxLength)
{
    if (id.isEmpty() || id.size() > maxLength)
        return false;
    for (QChar c : id) {
        const char16_t u = c.unicode();
        const bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '-'
            || u == '_' || u == '.';
        if (!ok)
            return false;
    }
    return true;
}

// Everything about the claims that does not depend on time or on who checks them.
std::optional<QString> claimsProblem(const ViewClaims &c)
{
    if (!ViewToken::isViewId(c.viewId))
        return QStringLiteral("invalid view id");
    if (!isIdentifier(c.sessionId, 128))
        return QStringLiteral("invalid session id");
    if (!isIdentifier(c.serverId, 128))
        return QStringLiteral("invalid server id");
    if (c.kind == ViewKind::Preview ? (c.port < 1 || c.port > 65535) : c.port != 0)
        return QStringLiteral("invalid port for a %1 view").arg(viewKindName(c.kind));
    if (c.nonce.size() != kNonceBytes)
        return QStringLiteral("invalid nonce");
    if (c.issuedAt <= 0 || c.expiresAt <= c.issuedAt || c.expiresAt - c.issuedAt > ViewToken::MaxLifetimeSeconds)
        return QStringLiteral("invalid lifetime");
    return std::nullopt;
}

QByteArray signedBytes(QByteArrayView encodedClaims)
{
    return QByteArray(ViewToken::SigningPrefix) + '\n' + encodedClaims.toByteArray();
}

} // namespace

QString ViewToken::newViewId()
{
    return QLatin1Char('v') + QString::fromLatin1(randomBytes(12).toHex());
}

QByteArray ViewToken::newNonce()
{
    return randomBytes(kNonceBytes);
}

bool ViewToken::isViewId(QStringView id)
{
    if (id.size() != 25 || id.front() != u'v')
        return false;
    for (QChar c : id.mid(1)) {
        const char16_t u = c.unicode();
        if (!((u >= '0' && u <= '9') || (u >= 'a' && u <= 'f')))
            return false;
    }
    return true;
}

Result<QByteArray> ViewToken::mint(const ViewClaims &c, QByteArrayView hubPrivateKey)
{
    if (auto problem = claimsProblem(c))
        return Error::invalidInput(*problem);
    const QJsonObject claims {{QStringLiteral("v"), Version}, {QStringLiteral("view"), c.viewId},
        {QStringLiteral("session"), c.sessionId}, {QStringLiteral("server"), c.serverId},
        {QStringLiteral("kind"), viewKindName(c.kind)}, {QStringLiteral("port"), c.port},
        {QStringLiteral("iat"), c.issuedAt}, {QStringLiteral("exp"), c.expiresAt},
        {QStringLiteral("nonce"), QString::fromLatin1(c.nonce.toBase64(kBase64Url))}};
    const QByteArray encoded = QJsonDocument(claims).toJson(QJsonDocument::Compact).toBase64(kBase64Url);
    auto signature = ed25519Sign(hubPrivateKey, signedBytes(encoded));
    if (!signature)
        return Error::invalidInput(QStringLiteral("cannot sign the view token: %1").arg(signature.error().message));
    return encoded + '.' + signature.value().toBase64(kBase64Url);
}

Result<ViewClaims, ViewTokenError> ViewToken::decodeUnverified(QByteArrayView token)
{
    if (token.isEmpty() || token.size() > MaxTokenBytes)
        return invalid(QStringLiteral("the view token has an impossible length"));
    const qsizetype dot = token.indexOf('.');
    if (dot <= 0 || token.indexOf('.', dot + 1) >= 0)
        return invalid(QStringLiteral("the view token is not two parts"));
    const auto json = decodeB64(token.first(dot));
    if (!json)
        return invalid(QStringLiteral("the view token's claims are not base64url"));
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(*json, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return invalid(QStringLiteral("the view token's claims are not a JSON object"));
    const QJsonObject o = doc.object();
    static const QStringList kFields {QStringLiteral("v"), QStringLiteral("view"), QStringLiteral("session"),
        QStringLiteral("server"), QStringLiteral("kind"), QStringLiteral("port"), QStringLiteral("iat"),
        QStringLiteral("exp"), QStringLiteral("nonce")};
    // Version 1 has exactly these claims: a new one (which might restrict the token) is a new version.
    if (o.size() != kFields.size())
        return invalid(QStringLiteral("the view token has unknown or missing claims"));
    for (const QString &f : kFields) {
        if (!o.contains(f))
            return invalid(QStringLiteral("the view token has no %1 claim").arg(f));
    }
    const auto integer = [&o](const QString &name) -> std::optional<qint64> {
        const QJsonValue v = o.value(name);
        if (!v.isDouble())
            return std::nullopt;
        const double d = v.toDouble();
        if (d != double(qint64(d)) || d < 0 || d > 1e15)
            return std::nullopt;
        return qint64(d);
    };
    const auto version = integer(QStringLiteral("v"));
    if (!version || *version != Version)
        return invalid(QStringLiteral("unsupported view token version"));
    const auto port = integer(QStringLiteral("port"));
    const auto iat = integer(QStringLiteral("iat"));
    const auto exp = integer(QStringLiteral("exp"));
    if (!port || !iat || !exp)
        return invalid(QStringLiteral("the view token's numeric claims are malformed"));
    for (const char *name : {"view", "session", "server", "kind", "nonce"}) {
        if (!o.value(QLatin1String(name)).isString())
            return invalid(QStringLiteral("the view token's %1 claim is not a string").arg(QLatin1String(name)));
    }
    const auto kind = viewKindFromName(o.value(QStringLiteral("kind")).toString());
    if (!kind)
        return invalid(QStringLiteral("unknown view kind"));
    const auto nonce = decodeB64(o.value(QStringLiteral("nonce")).toString().toLatin1());
    if (!nonce)
        return invalid(QStringLiteral("the view token's nonce is not base64url"));
    ViewClaims c;
    c.viewId = o.value(QStringLiteral("view")).toString();
    c.sessionId = o.value(QStringLiteral("session")).toString();
    c.serverId = o.value(QStringLiteral("server")).toString();
    c.kind = *kind;
    c.port = int(std::min<qint64>(*port, 1 << 20));
    c.issuedAt = *iat;
    c.expiresAt = *exp;
    c.nonce = *nonce;
    if (auto problem = claimsProblem(c))
        return invalid(QStringLiteral("the view token's claims are invalid: %1").arg(*problem));
    return c;
}

Result<ViewClaims, ViewTokenError> ViewToken::verify(
    QByteArrayView token, QByteArrayView hubPublicKey, const QString &serverId, qint64 nowUnix)
{
    if (token.isEmpty() || token.size() > MaxTokenBytes)
        return invalid(QStringLiteral("the view token has an impossible length"));
    const qsizetype dot = token.indexOf('.');
    if (dot <= 0)
        return invalid(QStringLiteral("the view token is not two parts"));
    const auto signature = decodeB64(token.sliced(dot + 1));
    // The signature first: nothing in unsigned claims is looked at beyond their encoding.
    if (!signature || signature->size() != kEd25519SignatureSize
        || !ed25519Verify(hubPublicKey, signedBytes(token.first(dot)), *signature))
        return invalid(QStringLiteral("the view token's signature does not verify"));
    auto decoded = decodeUnverified(token);
    if (!decoded)
        return decoded;
    const ViewClaims &c = decoded.value();
    if (c.serverId != serverId)
        return ViewTokenError {ViewTokenError::Code::Forbidden, QStringLiteral("the view token is for another server")};
    if (nowUnix >= c.expiresAt)
        return ViewTokenError {ViewTokenError::Code::Expired, QStringLiteral("the view token has expired")};
    if (c.issuedAt > nowUnix + AllowedSkewSeconds)
        return ViewTokenError {ViewTokenError::Code::Expired, QStringLiteral("the view token is not valid yet")};
    return decoded;
}

} // namespace isolation
