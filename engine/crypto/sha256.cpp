#include "sha256.h"

#include <cstdlib>

namespace isolation {

namespace {

// EVP fails only on allocation failure or a missing SHA-256: nothing to go on with.
void require(bool ok)
{
    if (!ok)
        std::abort();
}

} // namespace

Sha256::Sha256()
    : m_ctx(EVP_MD_CTX_new())
{
    require(m_ctx && EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) == 1);
}

void Sha256::add(QByteArrayView data)
{
    require(EVP_DigestUpdate(m_ctx.get(), data.data(), size_t(data.size())) == 1);
}

QByteArray Sha256::result()
{
    QByteArray digest(EVP_MAX_MD_SIZE, Qt::Uninitialized);
    unsigned int size = 0;
    require(EVP_DigestFinal_ex(m_ctx.get(), openssl::bytes(digest.data()), &size) == 1
        && EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) == 1);
    digest.resize(int(size));
    return digest;
}

} // namespace isolation
