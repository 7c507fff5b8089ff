// unique_ptr aliases with OpenSSL's free functions: every OpenSSL object in crypto/ lives in one of these.
#pragma once

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <memory>

namespace isolation::openssl {

template<auto FreeFunction>
struct Deleter
{
    template<typename T>
    void operator()(T *object) const
    {
        FreeFunction(object);
    }
};

using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX_free>>;
using KdfPtr = std::unique_ptr<EVP_KDF, Deleter<EVP_KDF_free>>;
using KdfCtxPtr = std::unique_ptr<EVP_KDF_CTX, Deleter<EVP_KDF_CTX_free>>;

inline const unsigned char *bytes(const char *data)
{
    return reinterpret_cast<const unsigned char *>(data);
}

inline unsigned char *bytes(char *data)
{
    return reinterpret_cast<unsigned char *>(data);
}

} // namespace isolation::openssl
