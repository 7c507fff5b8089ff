// secrets: launch secrets sealed by the hub to this server (HPKE), opened and bound to one session,
// held in memory only (SecretVault), delivered into a sandbox at run time through execd (never in
// its creation config) and redacted from every log line.
#pragma once

#include "core/result.h"

#include <QLoggingCategory>
#include <QString>

Q_DECLARE_LOGGING_CATEGORY(lcSecrets)

namespace isolation {

struct SecretsError
{
    enum class Code {
        Malformed, // the plaintext is not launch secrets (bad JSON, names, values, limits)
        Unreadable, // HPKE refused it: tampered, truncated, sealed to another key or for another server
        WrongSession, // sealed for another session
        Expired, // its expiresAt has passed
    };
    Code code = Code::Malformed;
    QString message; // never holds a secret value

    // A sealed blob does not get better by opening it again.
    bool retryable() const { return false; }
};

QString errorCodeName(SecretsError::Code code);

} // namespace isolation
