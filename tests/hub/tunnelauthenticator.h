// Decides whether a tunnel upgrade comes from a known server (docs/protocol.md, "Tunnel"):
// credential (constant time), signature, fresh timestamp, unused nonce. The server registry and
// the signature check are injected (pairing and crypto own them).
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "http/httprequest.h"

#include <QHash>
#include <QString>

#include <functional>
#include <optional>

namespace isolation::hub {

class TunnelAuthenticator
{
public:
    struct Server
    {
        QByteArray credentialHash; // SHA-256 of the credential: the hub never keeps the credential itself
        // True when `signature` is a valid signature of `message` by the server's key.
        std::function<bool(const QByteArray &message, const QByteArray &signature)> verify;
    };
    using Lookup = std::function<std::optional<Server>(const QString &serverId)>;

    static constexpr qint64 MaxSkewSeconds = 300;

    // `clock` must outlive the authenticator.
    TunnelAuthenticator(Lookup lookup, const Clock &clock);

    // The server id, or an error whose message is safe to log (never a credential).
    Result<QString> verify(const HttpRequest &request);

private:
    void forgetExpiredNonces(qint64 now);

    Lookup m_lookup;
    const Clock &m_clock;
    QHash<QByteArray, qint64> m_seen; // serverId + nonce -> when it may be forgotten (Unix s)
};

} // namespace isolation::hub
