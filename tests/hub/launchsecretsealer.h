// The hub's side of launch secrets (docs/protocol.md, "Launch secrets"): the plaintext binding a
// session and an expiry, sealed with HPKE base mode to the server's X25519 key, the server id as
// aad. The hub sends the result with a launch; only that server can open it.
#pragma once

#include "crypto/cryptoerror.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QMap>
#include <QString>

namespace isolation::hub {

class LaunchSecretSealer
{
public:
    static constexpr const char *kInfo = "isolation/launch-secrets/v1";

    // enc || ciphertext of {"sessionId", "expiresAt", "secrets": {NAME: value}}.
    static CryptoResult<QByteArray> seal(QByteArrayView serverX25519Public, const QString &serverId,
        const QString &sessionId, qint64 expiresAt, const QMap<QString, QByteArray> &secrets);
    // Any plaintext, sealed the same way (tests of what the engine refuses).
    static CryptoResult<QByteArray> sealPlaintext(
        QByteArrayView serverX25519Public, const QString &serverId, QByteArrayView plaintext);
};

} // namespace isolation::hub
