#include "objectencryptor.h"

#include "random.h"

#include "core/storagefault.h"

#include <QFileDevice>
#include <QIODevice>

#include <openssl/crypto.h>

#include <cerrno>

namespace isolation {

using namespace objectformat;

ObjectEncryptor::ObjectEncryptor(
    QByteArrayView workspaceKey, const ObjectBinding &binding, QIODevice *out, qsizetype chunkSize)
    : m_out(out)
    , m_chunkSize(chunkSize)
{
    const int exponent = chunkExponent(chunkSize);
    if (exponent < 0) {
        m_error = CryptoError::invalidInput(QStringLiteral("chunk size must be a power of two from 64 KiB to 1 MiB"));
    } else if (!out) {
        m_error = CryptoError::invalidInput(QStringLiteral("no output device"));
    } else {
        const QByteArray salt = randomBytes(kSaltSize);
        CryptoResult<ObjectKeys> keys = deriveKeys(workspaceKey, salt);
        if (keys) {
            m_header = header(binding.kind, exponent, salt, keys.value().commitment);
            m_associatedData = associatedData(m_header, binding);
            CryptoResult<AeadCipher> cipher = AeadCipher::create(AeadAlgorithm::Aes256Gcm, keys.value().key.view());
            if (cipher)
                m_cipher.emplace(std::move(cipher).value());
            else
                m_error = cipher.error();
        } else {
            m_error = keys.error();
        }
    }
    if (m_error) {
        m_state = ObjectCipherState::Failed;
        return;
    }
    m_plaintext.reserve(m_chunkSize);
    m_sealed.reserve(m_chunkSize + kTagSize);
}

ObjectEncryptor::~ObjectEncryptor()
{
    // The buffer held plaintext; leave none of it behind in freed memory.
    if (!m_plaintext.isEmpty())
        OPENSSL_cleanse(m_plaintext.data(), size_t(m_plaintext.size()));
}

CryptoResult<void> ObjectEncryptor::fail(CryptoError error)
{
    m_state = ObjectCipherState::Failed;
    m_error = error;
    return error;
}

CryptoResult<void> ObjectEncryptor::put(QByteArrayView bytes)
{
    const qint64 written = m_out->write(bytes.data(), bytes.size());
    if (written != bytes.size()) {
        const int errnum = errno;
        const auto *file = qobject_cast<const QFileDevice *>(m_out);
        const QString path = file ? file->fileName() : QString();
        if (const StorageFault fault = storageFaultAt(path, errnum); fault != StorageFault::None)
            return fail(CryptoError::internal(storageFaultText(fault, path)));
        return fail(CryptoError::internal(QStringLiteral("cannot write encrypted object: ") + m_out->errorString()));
    }
    return {};
}

CryptoResult<void> ObjectEncryptor::writeHeaderOnce()
{
    if (m_state != ObjectCipherState::Header)
        return {};
    m_state = ObjectCipherState::Chunks;
    return put(m_header);
}

CryptoResult<void> ObjectEncryptor::sealChunk(bool final)
{
    char nonce[kNonceSize];
    setChunk(m_index, final, nonce, m_associatedData);
    if (CryptoResult<void> sealed
        = m_cipher->seal(QByteArrayView(nonce, kNonceSize), m_associatedData, m_plaintext, m_sealed);
        !sealed)
        return fail(sealed.error());
    ++m_index;
    OPENSSL_cleanse(m_plaintext.data(), size_t(m_plaintext.size()));
    m_plaintext.resize(0); // keeps the capacity
    return put(m_sealed);
}

CryptoResult<void> ObjectEncryptor::write(QByteArrayView plaintext)
{
    if (m_state == ObjectCipherState::Failed)
        return *m_error;
    if (m_state == ObjectCipherState::Finished)
        return CryptoError::invalidInput(QStringLiteral("object encryptor already finished"));
    if (CryptoResult<void> ok = writeHeaderOnce(); !ok)
        return ok;
    while (!plaintext.isEmpty()) {
        // A full chunk is sealed only once more plaintext arrives: until then it may be the final one.
        if (m_plaintext.size() == m_chunkSize) {
            if (CryptoResult<void> ok = sealChunk(false); !ok)
                return ok;
        }
        const qsizetype take = qMin(m_chunkSize - m_plaintext.size(), plaintext.size());
        m_plaintext.append(plaintext.first(take));
        plaintext = plaintext.sliced(take);
    }
    return {};
}

CryptoResult<void> ObjectEncryptor::finish()
{
    if (m_state == ObjectCipherState::Failed)
        return *m_error;
    if (m_state == ObjectCipherState::Finished)
        return CryptoError::invalidInput(QStringLiteral("object encryptor already finished"));
    if (CryptoResult<void> ok = writeHeaderOnce(); !ok)
        return ok;
    if (CryptoResult<void> ok = sealChunk(true); !ok)
        return ok;
    m_state = ObjectCipherState::Finished;
    return {};
}

} // namespace isolation
