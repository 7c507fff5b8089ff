// AeadCipher: one keyed EVP_CIPHER_CTX reused for many messages, writing into caller buffers.
#pragma once

#include "aead.h"

#include <memory>

struct evp_cipher_ctx_st; // EVP_CIPHER_CTX, kept out of this header

namespace isolation {

// For callers that seal or open many messages under one key (HPKE contexts, encrypted objects):
// the key is set up once and output buffers keep their capacity, so nothing is allocated per message.
// Move-only. Same contracts as aeadSeal/aeadOpen.
class AeadCipher
{
public:
    static CryptoResult<AeadCipher> create(AeadAlgorithm algorithm, QByteArrayView key);

    AeadCipher(AeadCipher &&) noexcept = default;
    AeadCipher &operator=(AeadCipher &&) noexcept = default;

    AeadAlgorithm algorithm() const { return m_algorithm; }

    // out becomes ciphertext || tag (resized; its capacity is reused).
    CryptoResult<void> seal(QByteArrayView nonce, QByteArrayView aad, QByteArrayView plaintext, QByteArray &out);
    // out becomes the plaintext; on failure out is zeroed and emptied.
    CryptoResult<void> open(QByteArrayView nonce, QByteArrayView aad, QByteArrayView ciphertextAndTag, QByteArray &out);

private:
    struct CtxFree
    {
        void operator()(evp_cipher_ctx_st *ctx) const;
    };
    using CtxPtr = std::unique_ptr<evp_cipher_ctx_st, CtxFree>;

    AeadCipher(AeadAlgorithm algorithm, CtxPtr ctx);
    CryptoResult<void> start(QByteArrayView nonce, int encrypt, QByteArrayView aad);

    AeadAlgorithm m_algorithm;
    CtxPtr m_ctx; // holds the expanded key; EVP_CIPHER_CTX_free cleanses it
};

} // namespace isolation
