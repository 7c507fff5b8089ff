// Authentication of the tunnel's WebSocket upgrade (docs/protocol.md, "Tunnel"): the header
// names, the exact string the server's key signs, and reading those headers back on the hub.
#pragma once

#include "core/result.h"
#include "http/httprequest.h"

#include <QByteArray>
#include <QString>

namespace isolation {

class TunnelAuth
{
public:
    static constexpr const char *ServerHeader = "X-Isolation-Server";
    static constexpr const char *TimestampHeader = "X-Isolation-Timestamp";
    static constexpr const char *NonceHeader = "X-Isolation-Nonce";
    static constexpr const char *SignatureHeader = "X-Isolation-Signature";

    // What the hub reads from an upgrade request. Nothing here is verified yet.
    struct Claims
    {
        QString serverId;
        QByteArray credential; // the bearer token
        qint64 timestamp = 0; // Unix seconds
        QByteArray nonce; // as sent (base64url)
        QByteArray signature; // decoded bytes
        QByteArray signedMessage; // what the signature must cover
    };

    // "isolation-tunnel-v1\n<serverId>\n<timestamp>\n<nonce>"
    static QByteArray signedMessage(const QString &serverId, qint64 timestamp, const QByteArray &nonce);
    // 16 random bytes, base64url without padding.
    static QByteArray newNonce();
    // A server id is 1 to 128 of [A-Za-z0-9._-]: it goes into a line of the signed string.
    static bool validServerId(const QString &serverId);

    // The upgrade's headers; `signature` is over signedMessage(serverId, timestamp, nonce).
    static HttpHeaders headers(const QString &serverId, const QByteArray &credential, qint64 timestamp,
        const QByteArray &nonce, const QByteArray &signature);
    // Reads the headers back. Fails (InvalidInput) when one is missing or malformed.
    static Result<Claims> parse(const HttpRequest &request);
};

} // namespace isolation
