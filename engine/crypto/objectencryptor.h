// ObjectEncryptor: streams one object into the encrypted object format (docs/formats.md).
#pragma once

#include "aeadcipher.h"
#include "cryptoerror.h"
#include "objectcipherstate.h"
#include "objectformat.h"

#include <QByteArray>

#include <optional>

class QIODevice;

namespace isolation {

// Push plaintext in pieces of any size; whole chunks of ciphertext go to `out` as soon as they are
// known not to be the last one, and finish() writes the final chunk. Memory stays at about two chunks
// whatever the object's size. `out` is not owned and must outlive the encryptor. The constructor cannot
// fail: a workspace key that is not 32 bytes or a chunk size that is not a power of two in 64 KiB..1 MiB
// makes every call return InvalidInput. A device that refuses a write gives Internal. After any error
// the output is unusable.
class ObjectEncryptor
{
public:
    ObjectEncryptor(QByteArrayView workspaceKey, const ObjectBinding &binding, QIODevice *out,
        qsizetype chunkSize = qsizetype(256) * 1024);
    ~ObjectEncryptor();
    ObjectEncryptor(const ObjectEncryptor &) = delete;
    ObjectEncryptor &operator=(const ObjectEncryptor &) = delete;

    CryptoResult<void> write(QByteArrayView plaintext);
    CryptoResult<void> finish();

    ObjectCipherState state() const { return m_state; }

private:
    CryptoResult<void> fail(CryptoError error);
    CryptoResult<void> put(QByteArrayView bytes);
    CryptoResult<void> writeHeaderOnce();
    CryptoResult<void> sealChunk(bool final);

    QIODevice *m_out;
    qsizetype m_chunkSize;
    ObjectCipherState m_state = ObjectCipherState::Header;
    std::optional<CryptoError> m_error;
    std::optional<AeadCipher> m_cipher;
    QByteArray m_header;
    QByteArray m_associatedData;
    QByteArray m_plaintext; // the chunk being filled, up to m_chunkSize
    QByteArray m_sealed; // scratch for one sealed chunk
    quint64 m_index = 0;
};

} // namespace isolation
