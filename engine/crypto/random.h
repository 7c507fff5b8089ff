// Random bytes from OpenSSL's DRBG (RAND_bytes), for nonces, salts and keys.
#pragma once

#include "securebytes.h"

#include <QByteArray>

namespace isolation {

// n bytes from RAND_bytes; n <= 0 gives an empty array. Aborts the process when the DRBG fails:
// there is no safe way to go on without randomness.
QByteArray randomBytes(qsizetype n);

// The same, into a buffer that is zeroed when it dies.
SecureBytes randomSecret(qsizetype n);

} // namespace isolation
