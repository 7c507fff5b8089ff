#include "x25519.h"

#include "opensslptr.h"

#include <openssl/crypto.h>

namespace isolation {

namespace {

CryptoResult<openssl::PkeyPtr> privateKeyFrom(QByteArrayView privateKey)
{
    if (privateKey.size() != kX25519KeySize)
        return CryptoError::invalidInput(
            QStringLiteral("X25519 private key must be %1 bytes, not %2").arg(kX25519KeySize).arg(privateKey.size()));
    openssl::PkeyPtr key(EVP_PKEY_new_raw_private_key(
        EVP_PKEY_X25519, nullptr, openssl::bytes(privateKey.data()), size_t(privateKey.size())));
    if (!key)
        return CryptoError::fromOpenSsl("EVP_PKEY_new_raw_private_key(X25519)");
    return key;
}

CryptoResult<QByteArray> rawPublic(EVP_PKEY *key)
{
    QByteArray out(kX25519KeySize, Qt::Uninitialized);
    size_t length = size_t(out.size());
    if (EVP_PKEY_get_raw_public_key(key, openssl::bytes(out.data()), &length) != 1 || length != size_t(kX25519KeySize))
        return CryptoError::fromOpenSsl("EVP_PKEY_get_raw_public_key(X25519)");
    return out;
}

} // namespace

X25519KeyPair x25519Generate()
{
    openssl::PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519"));
    if (!key)
        qFatal("%s", qPrintable(CryptoError::fromOpenSsl("EVP_PKEY_Q_keygen(X25519)").message));
    X25519KeyPair pair;
    pair.privateKey = SecureBytes(kX25519KeySize);
    size_t length = size_t(kX25519KeySize);
    if (EVP_PKEY_get_raw_private_key(key.get(), openssl::bytes(pair.privateKey.data()), &length) != 1
        || length != size_t(kX25519KeySize))
        qFatal("%s", qPrintable(CryptoError::fromOpenSsl("EVP_PKEY_get_raw_private_key(X25519)").message));
    CryptoResult<QByteArray> publicKey = rawPublic(key.get());
    if (!publicKey)
        qFatal("%s", qPrintable(publicKey.error().message));
    pair.publicKey = std::move(publicKey).value();
    return pair;
}

CryptoResult<QByteArray> x25519PublicFromPrivate(QByteArrayView privateKey)
{
    CryptoResult<openssl::PkeyPtr> key = privateKeyFrom(privateKey);
    if (!key)
        return key.error();
    return rawPublic(key.value().get());
}

CryptoResult<SecureBytes> x25519SharedSecret(QByteArrayView privateKey, QByteArrayView peerPublic)
{
    CryptoResult<openssl::PkeyPtr> key = privateKeyFrom(privateKey);
    if (!key)
        return key.error();
    if (peerPublic.size() != kX25519KeySize)
        return CryptoError::invalidInput(
            QStringLiteral("X25519 public key must be %1 bytes, not %2").arg(kX25519KeySize).arg(peerPublic.size()));
    openssl::PkeyPtr peer(EVP_PKEY_new_raw_public_key(
        EVP_PKEY_X25519, nullptr, openssl::bytes(peerPublic.data()), size_t(peerPublic.size())));
    if (!peer)
        return CryptoError::fromOpenSsl("EVP_PKEY_new_raw_public_key(X25519)");

    openssl::PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key.value().get(), nullptr));
    if (!ctx)
        return CryptoError::fromOpenSsl("EVP_PKEY_CTX_new_from_pkey");
    if (EVP_PKEY_derive_init(ctx.get()) != 1)
        return CryptoError::fromOpenSsl("EVP_PKEY_derive_init");
    if (EVP_PKEY_derive_set_peer(ctx.get(), peer.get()) != 1)
        return CryptoError::fromOpenSsl("EVP_PKEY_derive_set_peer");

    SecureBytes shared(kX25519KeySize);
    size_t length = size_t(shared.size());
    // OpenSSL's X25519 itself fails the derivation when the result is all zeros (a low-order peer key);
    // the only other way to fail here is an internal error, which we cannot tell apart from that.
    if (EVP_PKEY_derive(ctx.get(), openssl::bytes(shared.data()), &length) != 1) {
        clearOpenSslErrors();
        return CryptoError::invalidInput(QStringLiteral("X25519 peer key gives no shared secret (low-order point)"));
    }
    static const char zeros[kX25519KeySize] = {};
    if (length != size_t(kX25519KeySize) || CRYPTO_memcmp(shared.constData(), zeros, sizeof zeros) == 0)
        return CryptoError::invalidInput(QStringLiteral("X25519 peer key gives an all-zero shared secret"));
    return shared;
}

} // namespace isolation
