#include "tunnelauth.h"

#include "core/base64url.h"

#include <QRandomGenerator>
#include <QRegularExpression>

namespace isolation {

namespace {

bool base64UrlText(const QByteArray &text)
{
    for (char c : text) {
        const bool ok
            = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok)
            return false;
    }
    return true;
}

} // namespace

QByteArray TunnelAuth::signedMessage(const QString &serverId, qint64 timestamp, const QByteArray &nonce)
{
    return "isolation-tunnel-v1\n" + serverId.toUtf8() + '\n' + QByteArray::number(timestamp) + '\n' + nonce;
}

QByteArray TunnelAuth::newNonce()
{
    QByteArray raw(16, Qt::Uninitialized);
    QRandomGenerator::system()->generate(
        reinterpret_cast<quint32 *>(raw.data()), reinterpret_cast<quint32 *>(raw.data() + raw.size()));
    return raw.toBase64(kBase64Url);
}

bool TunnelAuth::validServerId(const QString &serverId)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9._-]{1,128}$"));
    return re.match(serverId).hasMatch();
}

HttpHeaders TunnelAuth::headers(const QString &serverId, const QByteArray &credential, qint64 timestamp,
    const QByteArray &nonce, const QByteArray &signature)
{
    return {
        {"Authorization", "Bearer " + credential},
        {ServerHeader, serverId.toUtf8()},
        {TimestampHeader, QByteArray::number(timestamp)},
        {NonceHeader, nonce},
        {SignatureHeader, signature.toBase64(kBase64Url)},
    };
}

Result<TunnelAuth::Claims> TunnelAuth::parse(const HttpRequest &request)
{
    Claims claims;
    claims.credential = request.bearerToken();
    if (claims.credential.isEmpty())
        return Error::invalidInput(QStringLiteral("no server credential (Authorization: Bearer)"));
    claims.serverId = QString::fromUtf8(request.header(ServerHeader));
    if (!validServerId(claims.serverId))
        return Error::invalidInput(QStringLiteral("missing or malformed %1").arg(QLatin1String(ServerHeader)));
    bool ok = false;
    claims.timestamp = request.header(TimestampHeader).toLongLong(&ok);
    if (!ok || claims.timestamp <= 0)
        return Error::invalidInput(QStringLiteral("missing or malformed %1").arg(QLatin1String(TimestampHeader)));
    claims.nonce = request.header(NonceHeader);
    if (claims.nonce.size() < 16 || claims.nonce.size() > 128 || !base64UrlText(claims.nonce))
        return Error::invalidInput(QStringLiteral("missing or malformed %1").arg(QLatin1String(NonceHeader)));
    const QByteArray sig = request.header(SignatureHeader);
    if (sig.isEmpty() || sig.size() > 512 || !base64UrlText(sig))
        return Error::invalidInput(QStringLiteral("missing or malformed %1").arg(QLatin1String(SignatureHeader)));
    claims.signature = QByteArray::fromBase64(sig, kBase64Url);
    claims.signedMessage = signedMessage(claims.serverId, claims.timestamp, claims.nonce);
    return claims;
}

} // namespace isolation
