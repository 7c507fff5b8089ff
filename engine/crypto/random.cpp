#include "random.h"

#include "cryptoerror.h"

#include <openssl/rand.h>

#include <climits>

namespace isolation {

namespace {

void fill(char *out, qsizetype n)
{
    // RAND_bytes takes an int; fill in int-sized steps.
    while (n > 0) {
        const int step = n > INT_MAX ? INT_MAX : int(n);
        if (RAND_bytes(reinterpret_cast<unsigned char *>(out), step) != 1)
            qFatal("%s", qPrintable(CryptoError::fromOpenSsl("RAND_bytes").message));
        out += step;
        n -= step;
    }
}

} // namespace

QByteArray randomBytes(qsizetype n)
{
    if (n <= 0)
        return {};
    QByteArray bytes(n, Qt::Uninitialized);
    fill(bytes.data(), n);
    return bytes;
}

SecureBytes randomSecret(qsizetype n)
{
    SecureBytes bytes(n);
    if (n > 0)
        fill(bytes.data(), n);
    return bytes;
}

} // namespace isolation
