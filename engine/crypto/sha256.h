// SHA-256 of data given in pieces, through OpenSSL's EVP (its SHA extensions where the CPU has
// them: about ten times QCryptographicHash in Qt 6.4, which hashes in portable C).
#pragma once

#include "opensslptr.h"

#include <QByteArray>
#include <QByteArrayView>

namespace isolation {

class Sha256
{
public:
    Sha256();
    void add(QByteArrayView data);
    // The 32-byte digest of everything added; the hash starts again empty.
    QByteArray result();

private:
    openssl::MdCtxPtr m_ctx;
};

} // namespace isolation
