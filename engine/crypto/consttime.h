// Comparison of secrets (tags, keys, commitments) in time independent of their contents.
#pragma once

#include <QByteArrayView>

namespace isolation {

// True when a and b hold the same bytes. Runs in time that depends only on the length (CRYPTO_memcmp);
// returns false at once when the lengths differ, since the length is not secret.
bool constantTimeEquals(QByteArrayView a, QByteArrayView b);

} // namespace isolation
