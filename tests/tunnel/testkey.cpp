#include "testkey.h"

#include <openssl/evp.h>

#include <memory>

namespace isolation::test {

TestKey::TestKey()
    : m_key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"), EVP_PKEY_free)
{
    size_t len = 32;
    m_public.resize(32);
    if (m_key)
        EVP_PKEY_get_raw_public_key(m_key.get(), reinterpret_cast<unsigned char *>(m_public.data()), &len);
}

QByteArray TestKey::sign(const QByteArray &message) const
{
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    QByteArray sig(64, Qt::Uninitialized);
    size_t len = size_t(sig.size());
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, m_key.get()) != 1
        || EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char *>(sig.data()), &len,
               reinterpret_cast<const unsigned char *>(message.constData()), size_t(message.size()))
            != 1)
        return {};
    sig.resize(qsizetype(len));
    return sig;
}

bool TestKey::verify(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature)
{
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
            reinterpret_cast<const unsigned char *>(publicKey.constData()), size_t(publicKey.size())),
        EVP_PKEY_free);
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
        return false;
    return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char *>(signature.constData()),
               size_t(signature.size()), reinterpret_cast<const unsigned char *>(message.constData()),
               size_t(message.size()))
        == 1;
}

} // namespace isolation::test
