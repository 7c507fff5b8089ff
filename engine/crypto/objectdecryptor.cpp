#include "objectdecryptor.h"

#include "consttime.h"

#include <QIODevice>

#include <openssl/crypto.h>

namespace isolation {

using namespace objectformat;

ObjectDecryptor::ObjectDecryptor(QByteArrayView workspaceKey, ObjectBinding binding, QIODevice *out)
    : m_workspaceKey(workspaceKey)
    , m_binding(std::move(binding))
    , m_out(out)
{
    if (workspaceKey.size() != kKeySize)
        m_error = CryptoError::invalidInput(QStringLiteral("workspace key must be %1 bytes").arg(kKeySize));
    else if (!out)
        m_error = CryptoError::invalidInput(QStringLiteral("no output device"));
    if (m_error)
        m_state = ObjectCipherState::Failed;
    else
        m_buffer.reserve(kHeaderSize);
}

ObjectDecryptor::~ObjectDecryptor()
{
    if (!m_plaintext.isEmpty())
        OPENSSL_cleanse(m_plaintext.data(), size_t(m_plaintext.size()));
}

CryptoResult<void> ObjectDecryptor::fail(CryptoError error)
{
    m_state = ObjectCipherState::Failed;
    m_error = error;
    return error;
}

CryptoResult<void> ObjectDecryptor::readHeader()
{
    const QByteArrayView header(m_buffer);
    if (header.first(4) != QByteArrayView(kMagic, 4))
        return fail(CryptoError::invalidInput(QStringLiteral("not an encrypted object (bad magic)")));
    if (quint8(header[4]) != kVersion)
        return fail(CryptoError::invalidInput(
            QStringLiteral("unsupported encrypted object version %1").arg(quint8(header[4]))));
    if (quint8(header[5]) != quint8(m_binding.kind))
        return fail(CryptoError::verificationFailed(QStringLiteral("encrypted object is of another kind")));
    const int exponent = quint8(header[6]);
    if (exponent < kMinChunkExponent || exponent > kMaxChunkExponent)
        return fail(CryptoError::invalidInput(QStringLiteral("unsupported chunk size exponent %1").arg(exponent)));

    CryptoResult<ObjectKeys> keys = deriveKeys(m_workspaceKey.view(), header.sliced(7, kSaltSize));
    if (!keys)
        return fail(keys.error());
    if (!constantTimeEquals(keys.value().commitment, header.sliced(7 + kSaltSize, kCommitmentSize)))
        return fail(CryptoError::verificationFailed(QStringLiteral("encrypted object was made with another key")));
    CryptoResult<AeadCipher> cipher = AeadCipher::create(AeadAlgorithm::Aes256Gcm, keys.value().key.view());
    if (!cipher)
        return fail(cipher.error());
    m_cipher.emplace(std::move(cipher).value());
    m_workspaceKey.clear(); // the object key is all we need from here on

    const qsizetype chunkSize = qsizetype(1) << exponent;
    m_recordSize = chunkSize + kTagSize;
    m_associatedData = associatedData(header, m_binding);
    m_buffer.resize(0);
    m_buffer.reserve(m_recordSize);
    m_plaintext.reserve(chunkSize);
    m_state = ObjectCipherState::Chunks;
    return {};
}

CryptoResult<void> ObjectDecryptor::openChunk(bool final)
{
    char nonce[kNonceSize];
    setChunk(m_index, final, nonce, m_associatedData);
    if (CryptoResult<void> opened
        = m_cipher->open(QByteArrayView(nonce, kNonceSize), m_associatedData, m_buffer, m_plaintext);
        !opened) {
        if (opened.error().code != CryptoError::Code::VerificationFailed)
            return fail(opened.error());
        const bool tooShort = m_buffer.size() < kTagSize;
        return fail(CryptoError::verificationFailed(tooShort
                ? QStringLiteral("encrypted object is truncated")
                : QStringLiteral("encrypted object chunk %1 does not verify (tampered, truncated, extended "
                                 "or bound to another workspace or name)")
                      .arg(m_index)));
    }
    ++m_index;
    m_buffer.resize(0); // keeps the capacity
    const qint64 written = m_out->write(m_plaintext.constData(), m_plaintext.size());
    OPENSSL_cleanse(m_plaintext.data(), size_t(m_plaintext.size()));
    if (written != m_plaintext.size())
        return fail(CryptoError::internal(QStringLiteral("cannot write decrypted object: ") + m_out->errorString()));
    return {};
}

CryptoResult<void> ObjectDecryptor::write(QByteArrayView ciphertext)
{
    if (m_state == ObjectCipherState::Failed)
        return *m_error;
    if (m_state == ObjectCipherState::Finished) {
        if (ciphertext.isEmpty())
            return {};
        return fail(CryptoError::verificationFailed(QStringLiteral("bytes after the end of the encrypted object")));
    }
    while (!ciphertext.isEmpty()) {
        if (m_state == ObjectCipherState::Header) {
            const qsizetype take = qMin(kHeaderSize - m_buffer.size(), ciphertext.size());
            m_buffer.append(ciphertext.first(take));
            ciphertext = ciphertext.sliced(take);
            if (m_buffer.size() == kHeaderSize) {
                if (CryptoResult<void> ok = readHeader(); !ok)
                    return ok;
            }
            continue;
        }
        // A full record is opened as a non-final chunk only once more bytes follow it.
        if (m_buffer.size() == m_recordSize) {
            if (CryptoResult<void> ok = openChunk(false); !ok)
                return ok;
        }
        const qsizetype take = qMin(m_recordSize - m_buffer.size(), ciphertext.size());
        m_buffer.append(ciphertext.first(take));
        ciphertext = ciphertext.sliced(take);
    }
    return {};
}

CryptoResult<void> ObjectDecryptor::finish()
{
    if (m_state == ObjectCipherState::Failed)
        return *m_error;
    if (m_state == ObjectCipherState::Finished)
        return {};
    if (m_state == ObjectCipherState::Header)
        return fail(CryptoError::verificationFailed(QStringLiteral("encrypted object is truncated in its header")));
    if (CryptoResult<void> ok = openChunk(true); !ok)
        return ok;
    m_state = ObjectCipherState::Finished;
    return {};
}

} // namespace isolation
