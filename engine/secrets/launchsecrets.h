// Launch secrets as the hub sends them with a launch (docs/protocol.md, "Launch secrets"): HPKE
// base mode to the server's X25519 key, info "isolation/launch-secrets/v1", aad the server id;
// the plaintext JSON binds them to one session and an expiry. Opening checks all of that.
#pragma once

#include "crypto/securebytes.h"
#include "secretserror.h"

#include <QByteArrayView>
#include <QString>

#include <map>

namespace isolation {

class LaunchSecrets
{
public:
    static constexpr const char *kInfo = "isolation/launch-secrets/v1";
    static constexpr int kMaxSecrets = 64;
    static constexpr qsizetype kMinValueBytes = 4; // shorter values could not be redacted from logs
    static constexpr qsizetype kMaxValueBytes = 32 * 1024;
    static constexpr qsizetype kMaxSealedBytes = 1024 * 1024;

    // Opens `sealed` (enc || ciphertext) with the server's X25519 private key and checks that it
    // was sealed for `serverId` (the aad), for `sessionId`, and that `nowUnix` is before its
    // expiresAt. Unreadable: tampered, truncated, another key or another server. WrongSession,
    // Expired: what they say. Malformed: the plaintext breaks the format (names, values, limits).
    static Result<LaunchSecrets, SecretsError> open(QByteArrayView sealed, QByteArrayView serverPrivate,
        const QString &serverId, const QString &sessionId, qint64 nowUnix);

    // An environment variable name: [A-Za-z_][A-Za-z0-9_]*, at most 128 characters.
    static bool isValidName(const QString &name);

    QString sessionId() const { return m_sessionId; }
    qint64 expiresAt() const { return m_expiresAt; } // Unix seconds
    const std::map<QString, SecureBytes> &values() const { return m_values; }
    // Moves the values out (into a SecretVault); this object is left without any.
    std::map<QString, SecureBytes> takeValues() { return std::exchange(m_values, {}); }

private:
    QString m_sessionId;
    qint64 m_expiresAt = 0;
    std::map<QString, SecureBytes> m_values;
};

} // namespace isolation
