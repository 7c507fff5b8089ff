#include "opensslinit.h"

#include <openssl/crypto.h>

namespace isolation {

bool initOpenSslForProcess()
{
    // The first initialisation decides whether OpenSSL registers its exit handler; the options
    // it loads by default (error strings, the config file, the default providers) come anyway.
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr) == 1;
}

} // namespace isolation
