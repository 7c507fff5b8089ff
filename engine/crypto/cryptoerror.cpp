#include "cryptoerror.h"

#include <openssl/err.h>

Q_LOGGING_CATEGORY(lcCrypto, "isolation.crypto")

namespace isolation {

CryptoError CryptoError::fromOpenSsl(const char *call)
{
    QString message = QString::fromLatin1(call) + QStringLiteral(" failed");
    unsigned long code = 0;
    char buffer[256];
    while ((code = ERR_get_error()) != 0) {
        ERR_error_string_n(code, buffer, sizeof buffer);
        message += QStringLiteral(": ") + QString::fromLatin1(buffer);
    }
    // OpenSSL's own failures are rare and worth seeing; the message names calls, never data.
    qCWarning(lcCrypto).noquote() << message;
    return internal(message);
}

void clearOpenSslErrors()
{
    ERR_clear_error();
}

QString errorCodeName(CryptoError::Code code)
{
    switch (code) {
    case CryptoError::Code::InvalidInput:
        return QStringLiteral("invalid_input");
    case CryptoError::Code::VerificationFailed:
        return QStringLiteral("verification_failed");
    case CryptoError::Code::Internal:
        return QStringLiteral("internal");
    }
    return QStringLiteral("internal");
}

} // namespace isolation
