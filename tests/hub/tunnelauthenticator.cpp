#include "tunnelauthenticator.h"

#include "tunnel/tunnelauth.h"

#include <QCryptographicHash>

#include <openssl/crypto.h>

namespace isolation::hub {

namespace {

bool sameSecret(const QByteArray &a, const QByteArray &b)
{
    return a.size() == b.size() && !a.isEmpty() && CRYPTO_memcmp(a.constData(), b.constData(), size_t(a.size())) == 0;
}

} // namespace

TunnelAuthenticator::TunnelAuthenticator(Lookup lookup, const Clock &clock)
    : m_lookup(std::move(lookup))
    , m_clock(clock)
{ }

Result<QString> TunnelAuthenticator::verify(const HttpRequest &request)
{
    auto parsed = TunnelAuth::parse(request);
    if (!parsed)
        return parsed.error();
    const TunnelAuth::Claims &claims = parsed.value();
    const qint64 now = m_clock.unixSeconds();
    if (qAbs(now - claims.timestamp) > MaxSkewSeconds)
        return Error::invalidInput(QStringLiteral("tunnel handshake of %1 is stale or from the future (%2 s off)")
                                       .arg(claims.serverId)
                                       .arg(now - claims.timestamp));
    const std::optional<Server> server = m_lookup ? m_lookup(claims.serverId) : std::nullopt;
    if (!server)
        return Error::notFound(QStringLiteral("unknown server %1").arg(claims.serverId));
    if (!sameSecret(QCryptographicHash::hash(claims.credential, QCryptographicHash::Sha256), server->credentialHash))
        return Error::invalidInput(QStringLiteral("wrong credential for server %1").arg(claims.serverId));
    if (!server->verify || !server->verify(claims.signedMessage, claims.signature))
        return Error::invalidInput(QStringLiteral("bad tunnel signature for server %1").arg(claims.serverId));
    forgetExpiredNonces(now);
    const QByteArray key = claims.serverId.toUtf8() + '\n' + claims.nonce;
    if (m_seen.contains(key))
        return Error::invalidInput(QStringLiteral("replayed tunnel handshake for server %1").arg(claims.serverId));
    // A nonce only needs remembering while its timestamp would still be accepted.
    m_seen.insert(key, claims.timestamp + MaxSkewSeconds + 1);
    return claims.serverId;
}

void TunnelAuthenticator::forgetExpiredNonces(qint64 now)
{
    for (auto it = m_seen.begin(); it != m_seen.end();) {
        if (it.value() < now)
            it = m_seen.erase(it);
        else
            ++it;
    }
}

} // namespace isolation::hub
