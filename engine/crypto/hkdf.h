// HKDF with SHA-256 (RFC 5869) through OpenSSL's EVP_KDF "HKDF".
#pragma once

#include "cryptoerror.h"
#include "securebytes.h"

#include <QByteArrayView>

namespace isolation {

constexpr qsizetype kHkdfHashSize = 32; // SHA-256
constexpr qsizetype kHkdfMaxLength = 255 * kHkdfHashSize; // RFC 5869: L <= 255 * HashLen
constexpr qsizetype kHkdfMaxInfoSize = 1024; // OpenSSL 3.0 keeps info in a fixed 1024-byte buffer

// HKDF-Extract(salt, IKM) -> PRK (32 bytes). An empty salt means HashLen zero bytes, as the RFC says.
// Cannot fail for any input; aborts the process only when OpenSSL itself cannot run (as randomBytes does).
SecureBytes hkdfExtract(QByteArrayView salt, QByteArrayView ikm);

// HKDF-Expand(PRK, info, L). InvalidInput when the PRK is shorter than 32 bytes, when length is
// negative or above 8160 (255 * 32), or when info is longer than kHkdfMaxInfoSize. length 0 gives empty.
CryptoResult<SecureBytes> hkdfExpand(QByteArrayView prk, QByteArrayView info, qsizetype length);

// Extract then Expand, with the same limits on length and info.
CryptoResult<SecureBytes> hkdfSha256(QByteArrayView ikm, QByteArrayView salt, QByteArrayView info, qsizetype length);

} // namespace isolation
