// X25519 key agreement (RFC 7748) on raw 32-byte keys through EVP_PKEY_X25519.
#pragma once

#include "cryptoerror.h"
#include "securebytes.h"

#include <QByteArray>
#include <QByteArrayView>

namespace isolation {

constexpr qsizetype kX25519KeySize = 32;

struct X25519KeyPair
{
    SecureBytes privateKey; // raw 32 bytes
    QByteArray publicKey; // raw 32 bytes
};

// A fresh key pair from OpenSSL's DRBG. Aborts when OpenSSL cannot generate one (as randomBytes does).
X25519KeyPair x25519Generate();

// InvalidInput unless the private key is 32 bytes.
CryptoResult<QByteArray> x25519PublicFromPrivate(QByteArrayView privateKey);

// The 32-byte shared secret. InvalidInput for keys that are not 32 bytes and for a peer key of low order,
// whose shared secret would be all zeros (RFC 7748 section 6.1: refused, never returned).
CryptoResult<SecureBytes> x25519SharedSecret(QByteArrayView privateKey, QByteArrayView peerPublic);

} // namespace isolation
