#include "ed25519.h"

#include "opensslptr.h"

namespace isolation {

namespace {

// OpenSSL wants a readable pointer even for an empty message.
const unsigned char *messageBytes(QByteArrayView message)
{
    return openssl::bytes(message.isEmpty() ? "" : message.data());
}

CryptoResult<openssl::PkeyPtr> privateKeyFrom(QByteArrayView privateKey)
{
    if (privateKey.size() != kEd25519KeySize)
        return CryptoError::invalidInput(
            QStringLiteral("Ed25519 private key must be %1 bytes, not %2").arg(kEd25519KeySize).arg(privateKey.size()));
    openssl::PkeyPtr key(EVP_PKEY_new_raw_private_key(
        EVP_PKEY_ED25519, nullptr, openssl::bytes(privateKey.data()), size_t(privateKey.size())));
    if (!key)
        return CryptoError::fromOpenSsl("EVP_PKEY_new_raw_private_key(ED25519)");
    return key;
}

CryptoResult<QByteArray> rawPublic(EVP_PKEY *key)
{
    QByteArray out(kEd25519KeySize, Qt::Uninitialized);
    size_t length = size_t(out.size());
    if (EVP_PKEY_get_raw_public_key(key, openssl::bytes(out.data()), &length) != 1 || length != size_t(kEd25519KeySize))
        return CryptoError::fromOpenSsl("EVP_PKEY_get_raw_public_key(ED25519)");
    return out;
}

} // namespace

Ed25519KeyPair ed25519Generate()
{
    openssl::PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
    if (!key)
        qFatal("%s", qPrintable(CryptoError::fromOpenSsl("EVP_PKEY_Q_keygen(ED25519)").message));
    Ed25519KeyPair pair;
    pair.privateKey = SecureBytes(kEd25519KeySize);
    size_t length = size_t(kEd25519KeySize);
    if (EVP_PKEY_get_raw_private_key(key.get(), openssl::bytes(pair.privateKey.data()), &length) != 1
        || length != size_t(kEd25519KeySize))
        qFatal("%s", qPrintable(CryptoError::fromOpenSsl("EVP_PKEY_get_raw_private_key(ED25519)").message));
    CryptoResult<QByteArray> publicKey = rawPublic(key.get());
    if (!publicKey)
        qFatal("%s", qPrintable(publicKey.error().message));
    pair.publicKey = std::move(publicKey).value();
    return pair;
}

CryptoResult<QByteArray> ed25519PublicFromPrivate(QByteArrayView privateKey)
{
    CryptoResult<openssl::PkeyPtr> key = privateKeyFrom(privateKey);
    if (!key)
        return key.error();
    return rawPublic(key.value().get());
}

CryptoResult<QByteArray> ed25519Sign(QByteArrayView privateKey, QByteArrayView message)
{
    CryptoResult<openssl::PkeyPtr> key = privateKeyFrom(privateKey);
    if (!key)
        return key.error();
    openssl::MdCtxPtr ctx(EVP_MD_CTX_new());
    if (!ctx)
        return CryptoError::fromOpenSsl("EVP_MD_CTX_new");
    // Pure Ed25519 hashes internally: no digest is named, and signing is one shot.
    if (EVP_DigestSignInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, key.value().get(), nullptr) != 1)
        return CryptoError::fromOpenSsl("EVP_DigestSignInit_ex");
    QByteArray signature(kEd25519SignatureSize, Qt::Uninitialized);
    size_t length = size_t(signature.size());
    if (EVP_DigestSign(
            ctx.get(), openssl::bytes(signature.data()), &length, messageBytes(message), size_t(message.size()))
            != 1
        || length != size_t(kEd25519SignatureSize))
        return CryptoError::fromOpenSsl("EVP_DigestSign");
    return signature;
}

bool ed25519Verify(QByteArrayView publicKey, QByteArrayView message, QByteArrayView signature)
{
    if (publicKey.size() != kEd25519KeySize || signature.size() != kEd25519SignatureSize)
        return false;
    openssl::PkeyPtr key(EVP_PKEY_new_raw_public_key(
        EVP_PKEY_ED25519, nullptr, openssl::bytes(publicKey.data()), size_t(publicKey.size())));
    openssl::MdCtxPtr ctx(EVP_MD_CTX_new());
    const bool valid = key && ctx
        && EVP_DigestVerifyInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, key.get(), nullptr) == 1
        && EVP_DigestVerify(ctx.get(), openssl::bytes(signature.data()), size_t(signature.size()),
               messageBytes(message), size_t(message.size()))
            == 1;
    if (!valid)
        clearOpenSslErrors();
    return valid;
}

} // namespace isolation
