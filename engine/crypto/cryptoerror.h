// crypto: OpenSSL 3 EVP behind small value-typed wrappers (AEAD, HKDF, X25519, Ed25519, HPKE per
// RFC 9180, random, constant-time compare, zeroing buffers) and the chunked encrypted object format
// of workspace bundles (docs/formats.md). Every OpenSSL object lives in RAII; no secret is logged.
#pragma once

#include "core/result.h"

#include <QLoggingCategory>
#include <QString>

Q_DECLARE_LOGGING_CATEGORY(lcCrypto)

namespace isolation {

struct CryptoError
{
    enum class Code {
        InvalidInput, // malformed arguments: wrong key or nonce size, unsupported format version, ...
        VerificationFailed, // authentication failed: bad tag, bad signature, wrong key, tampered or truncated data
        Internal, // OpenSSL failed for a reason of its own (allocation, provider); the message says which call
    } code
        = Code::Internal;
    QString message;

    // Nothing here gets better by trying again with the same input.
    bool retryable() const { return false; }

    static CryptoError invalidInput(QString m) { return {Code::InvalidInput, std::move(m)}; }
    static CryptoError verificationFailed(QString m) { return {Code::VerificationFailed, std::move(m)}; }
    static CryptoError internal(QString m) { return {Code::Internal, std::move(m)}; }

    // An Internal error naming the failed call, with OpenSSL's error queue read (and cleared) into the message.
    static CryptoError fromOpenSsl(const char *call);
};

template<typename T>
using CryptoResult = Result<T, CryptoError>;

// Empties this thread's OpenSSL error queue (after a failure we report with a code of our own).
void clearOpenSslErrors();

QString errorCodeName(CryptoError::Code code);

} // namespace isolation
