// Ed25519 signatures (RFC 8032, pure) on raw 32-byte keys through EVP_PKEY_ED25519 and EVP_DigestSign.
#pragma once

#include "cryptoerror.h"
#include "securebytes.h"

#include <QByteArray>
#include <QByteArrayView>

namespace isolation {

constexpr qsizetype kEd25519KeySize = 32;
constexpr qsizetype kEd25519SignatureSize = 64;

struct Ed25519KeyPair
{
    SecureBytes privateKey; // the raw 32-byte seed
    QByteArray publicKey; // raw 32 bytes
};

// A fresh key pair from OpenSSL's DRBG. Aborts when OpenSSL cannot generate one (as randomBytes does).
Ed25519KeyPair ed25519Generate();

// InvalidInput unless the private key (seed) is 32 bytes.
CryptoResult<QByteArray> ed25519PublicFromPrivate(QByteArrayView privateKey);

// The 64-byte signature of message. InvalidInput unless the private key is 32 bytes.
CryptoResult<QByteArray> ed25519Sign(QByteArrayView privateKey, QByteArrayView message);

// True only for a valid 64-byte signature of message under the 32-byte publicKey; false for anything
// malformed (wrong sizes, a public key that is not a curve point, S not reduced).
bool ed25519Verify(QByteArrayView publicKey, QByteArrayView message, QByteArrayView signature);

} // namespace isolation
