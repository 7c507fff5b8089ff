#include "hkdf.h"

#include "opensslptr.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

namespace isolation {

namespace {

// An octet-string parameter; OpenSSL wants a non-null pointer even for zero bytes.
OSSL_PARAM octets(const char *name, QByteArrayView bytes)
{
    static char empty = 0;
    void *data = bytes.isEmpty() ? &empty : const_cast<char *>(bytes.data());
    return OSSL_PARAM_construct_octet_string(name, data, size_t(bytes.size()));
}

CryptoResult<void> validateExpand(QByteArrayView info, qsizetype length)
{
    if (length < 0 || length > kHkdfMaxLength)
        return CryptoError::invalidInput(
            QStringLiteral("HKDF output length %1 is outside 0..%2").arg(length).arg(kHkdfMaxLength));
    if (info.size() > kHkdfMaxInfoSize)
        return CryptoError::invalidInput(
            QStringLiteral("HKDF info of %1 bytes is longer than %2").arg(info.size()).arg(kHkdfMaxInfoSize));
    return {};
}

// One EVP_KDF "HKDF" derivation in the given mode (EVP_KDF_HKDF_MODE_*).
CryptoResult<SecureBytes> derive(
    int mode, QByteArrayView key, QByteArrayView salt, QByteArrayView info, qsizetype length)
{
    SecureBytes out(length);
    if (length == 0)
        return out;

    openssl::KdfPtr kdf(EVP_KDF_fetch(nullptr, OSSL_KDF_NAME_HKDF, nullptr));
    if (!kdf)
        return CryptoError::fromOpenSsl("EVP_KDF_fetch(HKDF)");
    openssl::KdfCtxPtr ctx(EVP_KDF_CTX_new(kdf.get()));
    if (!ctx)
        return CryptoError::fromOpenSsl("EVP_KDF_CTX_new");

    char digest[] = "SHA256";
    OSSL_PARAM params[6];
    int n = 0;
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
    params[n++] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
    params[n++] = octets(OSSL_KDF_PARAM_KEY, key);
    if (!salt.isEmpty())
        params[n++] = octets(OSSL_KDF_PARAM_SALT, salt);
    if (!info.isEmpty())
        params[n++] = octets(OSSL_KDF_PARAM_INFO, info);
    params[n] = OSSL_PARAM_construct_end();

    if (EVP_KDF_derive(ctx.get(), openssl::bytes(out.data()), size_t(length), params) != 1)
        return CryptoError::fromOpenSsl("EVP_KDF_derive(HKDF)");
    return out;
}

} // namespace

SecureBytes hkdfExtract(QByteArrayView salt, QByteArrayView ikm)
{
    CryptoResult<SecureBytes> prk = derive(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, ikm, salt, {}, kHkdfHashSize);
    if (!prk)
        qFatal("%s", qPrintable(prk.error().message));
    return std::move(prk).value();
}

CryptoResult<SecureBytes> hkdfExpand(QByteArrayView prk, QByteArrayView info, qsizetype length)
{
    if (prk.size() < kHkdfHashSize)
        return CryptoError::invalidInput(QStringLiteral("HKDF PRK must be at least %1 bytes").arg(kHkdfHashSize));
    if (CryptoResult<void> valid = validateExpand(info, length); !valid)
        return valid.error();
    return derive(EVP_KDF_HKDF_MODE_EXPAND_ONLY, prk, {}, info, length);
}

CryptoResult<SecureBytes> hkdfSha256(QByteArrayView ikm, QByteArrayView salt, QByteArrayView info, qsizetype length)
{
    if (CryptoResult<void> valid = validateExpand(info, length); !valid)
        return valid.error();
    return derive(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, ikm, salt, info, length);
}

} // namespace isolation
