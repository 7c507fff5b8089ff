#include "consttime.h"

#include <openssl/crypto.h>

namespace isolation {

bool constantTimeEquals(QByteArrayView a, QByteArrayView b)
{
    if (a.size() != b.size())
        return false;
    if (a.isEmpty())
        return true;
    return CRYPTO_memcmp(a.data(), b.data(), size_t(a.size())) == 0;
}

} // namespace isolation
