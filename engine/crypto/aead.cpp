#include "aead.h"

#include "aeadcipher.h"

namespace isolation {

qsizetype aeadKeySize(AeadAlgorithm algorithm)
{
    return algorithm == AeadAlgorithm::Aes128Gcm ? 16 : 32;
}

qsizetype aeadNonceSize(AeadAlgorithm)
{
    return 12;
}

qsizetype aeadTagSize(AeadAlgorithm)
{
    return 16;
}

CryptoResult<QByteArray> aeadSeal(
    AeadAlgorithm algorithm, QByteArrayView key, QByteArrayView nonce, QByteArrayView aad, QByteArrayView plaintext)
{
    CryptoResult<AeadCipher> cipher = AeadCipher::create(algorithm, key);
    if (!cipher)
        return cipher.error();
    QByteArray out;
    if (CryptoResult<void> sealed = cipher.value().seal(nonce, aad, plaintext, out); !sealed)
        return sealed.error();
    return out;
}

CryptoResult<QByteArray> aeadOpen(AeadAlgorithm algorithm, QByteArrayView key, QByteArrayView nonce, QByteArrayView aad,
    QByteArrayView ciphertextAndTag)
{
    CryptoResult<AeadCipher> cipher = AeadCipher::create(algorithm, key);
    if (!cipher)
        return cipher.error();
    QByteArray out;
    if (CryptoResult<void> opened = cipher.value().open(nonce, aad, ciphertextAndTag, out); !opened)
        return opened.error();
    return out;
}

} // namespace isolation
