// One-shot AEAD (AES-GCM, ChaCha20-Poly1305) with 12-byte nonces and 16-byte tags.
#pragma once

#include "cryptoerror.h"

#include <QByteArray>
#include <QByteArrayView>

namespace isolation {

enum class AeadAlgorithm { Aes128Gcm, Aes256Gcm, ChaCha20Poly1305 };

qsizetype aeadKeySize(AeadAlgorithm algorithm); // 16, 32, 32
qsizetype aeadNonceSize(AeadAlgorithm algorithm); // 12 for all
qsizetype aeadTagSize(AeadAlgorithm algorithm); // 16 for all

// Encrypts plaintext and returns ciphertext || tag. InvalidInput for a key or nonce of the wrong size.
// Never reuse a (key, nonce) pair: for GCM that reveals the authentication key.
CryptoResult<QByteArray> aeadSeal(
    AeadAlgorithm algorithm, QByteArrayView key, QByteArrayView nonce, QByteArrayView aad, QByteArrayView plaintext);

// Checks and decrypts ciphertext || tag. VerificationFailed when the tag does not match (or the input is
// shorter than a tag); InvalidInput for a key or nonce of the wrong size. No plaintext leaves on failure.
CryptoResult<QByteArray> aeadOpen(AeadAlgorithm algorithm, QByteArrayView key, QByteArrayView nonce, QByteArrayView aad,
    QByteArrayView ciphertextAndTag);

} // namespace isolation
