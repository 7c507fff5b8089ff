// ObjectDecryptor: checks and decrypts one object of the encrypted object format (docs/formats.md).
#pragma once

#include "aeadcipher.h"
#include "cryptoerror.h"
#include "objectcipherstate.h"
#include "objectformat.h"

#include <QByteArray>

#include <optional>

class QIODevice;

namespace isolation {

// Push ciphertext in pieces of any size; each chunk's plaintext goes to `out` only after that chunk's
// tag verified, and finish() checks that the final chunk came and nothing followed it. Plaintext written
// before finish() returned ok is authentic chunk by chunk but may be a truncated object: on any error,
// discard everything written. Memory stays at about two chunks. `out` is not owned.
// Refuses with InvalidInput: a workspace key that is not 32 bytes, a bad magic, an unknown version or
// chunk size. With VerificationFailed: another kind, workspace id or object name, another key (the key
// commitment), any changed byte, truncation anywhere, bytes after the final chunk. A device that refuses
// a write gives Internal. The first error sticks.
class ObjectDecryptor
{
public:
    ObjectDecryptor(QByteArrayView workspaceKey, ObjectBinding binding, QIODevice *out);
    ~ObjectDecryptor();
    ObjectDecryptor(const ObjectDecryptor &) = delete;
    ObjectDecryptor &operator=(const ObjectDecryptor &) = delete;

    CryptoResult<void> write(QByteArrayView ciphertext);
    CryptoResult<void> finish();

    ObjectCipherState state() const { return m_state; }

private:
    CryptoResult<void> fail(CryptoError error);
    CryptoResult<void> readHeader();
    CryptoResult<void> openChunk(bool final);

    SecureBytes m_workspaceKey;
    ObjectBinding m_binding;
    QIODevice *m_out;
    ObjectCipherState m_state = ObjectCipherState::Header;
    std::optional<CryptoError> m_error;
    std::optional<AeadCipher> m_cipher;
    qsizetype m_recordSize = 0; // chunk size + tag
    QByteArray m_associatedData;
    QByteArray m_buffer; // the header, then one sealed chunk at a time
    QByteArray m_plaintext; // scratch for one opened chunk
    quint64 m_index = 0;
};

} // namespace isolation
