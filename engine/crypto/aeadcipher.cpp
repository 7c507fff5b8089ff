#include "aeadcipher.h"

#include "opensslptr.h"

#include <openssl/crypto.h>

#include <climits>

namespace isolation {

namespace {

const EVP_CIPHER *cipherFor(AeadAlgorithm algorithm)
{
    switch (algorithm) {
    case AeadAlgorithm::Aes128Gcm:
        return EVP_aes_128_gcm();
    case AeadAlgorithm::Aes256Gcm:
        return EVP_aes_256_gcm();
    case AeadAlgorithm::ChaCha20Poly1305:
        return EVP_chacha20_poly1305();
    }
    return nullptr;
}

// EVP_*Update take int lengths.
bool fitsInt(qsizetype n)
{
    return n >= 0 && n <= INT_MAX - 64;
}

void wipe(QByteArray &out)
{
    if (!out.isEmpty())
        OPENSSL_cleanse(out.data(), size_t(out.size()));
    out.resize(0);
}

} // namespace

CryptoResult<AeadCipher> AeadCipher::create(AeadAlgorithm algorithm, QByteArrayView key)
{
    const EVP_CIPHER *cipher = cipherFor(algorithm);
    if (!cipher)
        return CryptoError::invalidInput(QStringLiteral("unknown AEAD algorithm"));
    if (key.size() != aeadKeySize(algorithm))
        return CryptoError::invalidInput(
            QStringLiteral("AEAD key must be %1 bytes, not %2").arg(aeadKeySize(algorithm)).arg(key.size()));
    CtxPtr ctx(EVP_CIPHER_CTX_new());
    if (!ctx)
        return CryptoError::fromOpenSsl("EVP_CIPHER_CTX_new");
    // The key is expanded once here; each message later sets only its nonce and direction.
    if (EVP_CipherInit_ex2(ctx.get(), cipher, openssl::bytes(key.data()), nullptr, 1, nullptr) != 1)
        return CryptoError::fromOpenSsl("EVP_CipherInit_ex2");
    return AeadCipher(algorithm, std::move(ctx));
}

void AeadCipher::CtxFree::operator()(evp_cipher_ctx_st *ctx) const
{
    EVP_CIPHER_CTX_free(ctx);
}

AeadCipher::AeadCipher(AeadAlgorithm algorithm, CtxPtr ctx)
    : m_algorithm(algorithm)
    , m_ctx(std::move(ctx))
{ }

CryptoResult<void> AeadCipher::start(QByteArrayView nonce, int encrypt, QByteArrayView aad)
{
    if (!m_ctx)
        return CryptoError::invalidInput(QStringLiteral("AEAD cipher was moved from"));
    if (nonce.size() != aeadNonceSize(m_algorithm))
        return CryptoError::invalidInput(
            QStringLiteral("AEAD nonce must be %1 bytes, not %2").arg(aeadNonceSize(m_algorithm)).arg(nonce.size()));
    if (!fitsInt(aad.size()))
        return CryptoError::invalidInput(QStringLiteral("AEAD associated data too long"));
    if (EVP_CipherInit_ex2(m_ctx.get(), nullptr, nullptr, openssl::bytes(nonce.data()), encrypt, nullptr) != 1)
        return CryptoError::fromOpenSsl("EVP_CipherInit_ex2(nonce)");
    int written = 0;
    if (!aad.isEmpty()
        && EVP_CipherUpdate(m_ctx.get(), nullptr, &written, openssl::bytes(aad.data()), int(aad.size())) != 1)
        return CryptoError::fromOpenSsl("EVP_CipherUpdate(aad)");
    return {};
}

CryptoResult<void> AeadCipher::seal(QByteArrayView nonce, QByteArrayView aad, QByteArrayView plaintext, QByteArray &out)
{
    if (!fitsInt(plaintext.size()))
        return CryptoError::invalidInput(QStringLiteral("AEAD plaintext too long"));
    if (CryptoResult<void> started = start(nonce, 1, aad); !started)
        return started.error();

    const qsizetype tagSize = aeadTagSize(m_algorithm);
    out.resize(plaintext.size() + tagSize);
    unsigned char *dst = openssl::bytes(out.data());
    int written = 0;
    if (!plaintext.isEmpty()
        && EVP_EncryptUpdate(m_ctx.get(), dst, &written, openssl::bytes(plaintext.data()), int(plaintext.size())) != 1)
        return CryptoError::fromOpenSsl("EVP_EncryptUpdate");
    int finalWritten = 0;
    if (EVP_EncryptFinal_ex(m_ctx.get(), dst + written, &finalWritten) != 1)
        return CryptoError::fromOpenSsl("EVP_EncryptFinal_ex");
    if (written + finalWritten != plaintext.size())
        return CryptoError::internal(QStringLiteral("AEAD produced an unexpected ciphertext length"));
    if (EVP_CIPHER_CTX_ctrl(m_ctx.get(), EVP_CTRL_AEAD_GET_TAG, int(tagSize), dst + plaintext.size()) != 1)
        return CryptoError::fromOpenSsl("EVP_CTRL_AEAD_GET_TAG");
    return {};
}

CryptoResult<void> AeadCipher::open(
    QByteArrayView nonce, QByteArrayView aad, QByteArrayView ciphertextAndTag, QByteArray &out)
{
    const qsizetype tagSize = aeadTagSize(m_algorithm);
    if (!fitsInt(ciphertextAndTag.size()))
        return CryptoError::invalidInput(QStringLiteral("AEAD ciphertext too long"));
    if (CryptoResult<void> started = start(nonce, 0, aad); !started)
        return started.error();
    if (ciphertextAndTag.size() < tagSize) {
        wipe(out);
        return CryptoError::verificationFailed(QStringLiteral("AEAD ciphertext is shorter than its tag"));
    }

    const qsizetype ciphertextSize = ciphertextAndTag.size() - tagSize;
    // The tag is checked only at the end, so plaintext is written first and wiped if the tag fails.
    out.resize(ciphertextSize);
    unsigned char *dst = openssl::bytes(out.data());
    int written = 0;
    if (ciphertextSize > 0
        && EVP_DecryptUpdate(m_ctx.get(), dst, &written, openssl::bytes(ciphertextAndTag.data()), int(ciphertextSize))
            != 1) {
        wipe(out);
        return CryptoError::fromOpenSsl("EVP_DecryptUpdate");
    }
    // SET_TAG takes a non-const pointer but only reads from it.
    auto *tag = const_cast<char *>(ciphertextAndTag.data() + ciphertextSize);
    if (EVP_CIPHER_CTX_ctrl(m_ctx.get(), EVP_CTRL_AEAD_SET_TAG, int(tagSize), tag) != 1) {
        wipe(out);
        return CryptoError::fromOpenSsl("EVP_CTRL_AEAD_SET_TAG");
    }
    int finalWritten = 0;
    if (EVP_DecryptFinal_ex(m_ctx.get(), dst + written, &finalWritten) != 1) {
        wipe(out);
        clearOpenSslErrors();
        return CryptoError::verificationFailed(QStringLiteral("AEAD tag does not match"));
    }
    return {};
}

} // namespace isolation
