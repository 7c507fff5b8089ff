#include "objectformat.h"

#include "hkdf.h"

#include <QtEndian>

namespace isolation::objectformat {

namespace {

void appendU32(QByteArray &out, quint32 value)
{
    char bytes[4];
    qToBigEndian(value, bytes);
    out.append(bytes, 4);
}

void appendString(QByteArray &out, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    appendU32(out, quint32(utf8.size()));
    out += utf8;
}

} // namespace

int chunkExponent(qsizetype chunkSize)
{
    for (int e = kMinChunkExponent; e <= kMaxChunkExponent; ++e) {
        if (chunkSize == (qsizetype(1) << e))
            return e;
    }
    return -1;
}

CryptoResult<ObjectKeys> deriveKeys(QByteArrayView workspaceKey, QByteArrayView salt)
{
    if (workspaceKey.size() != kKeySize)
        return CryptoError::invalidInput(QStringLiteral("workspace key must be %1 bytes").arg(kKeySize));
    if (salt.size() != kSaltSize)
        return CryptoError::invalidInput(QStringLiteral("object salt must be %1 bytes").arg(kSaltSize));
    // One PRK per object; the key and the commitment are independent HKDF outputs of it, so the
    // commitment reveals nothing of the key yet pins it: another workspace key gives another commitment.
    const SecureBytes prk = hkdfExtract(salt, workspaceKey);
    CryptoResult<SecureBytes> key = hkdfExpand(prk.view(), "isolation object v1 key", kKeySize);
    if (!key)
        return key.error();
    CryptoResult<SecureBytes> commitment = hkdfExpand(prk.view(), "isolation object v1 commit", kCommitmentSize);
    if (!commitment)
        return commitment.error();
    return ObjectKeys {std::move(key).value(), commitment.value().toByteArray()};
}

QByteArray header(ObjectBinding::Kind kind, int chunkExponent, QByteArrayView salt, QByteArrayView commitment)
{
    QByteArray out;
    out.reserve(kHeaderSize);
    out.append(kMagic, 4);
    out.append(char(kVersion));
    out.append(char(kind));
    out.append(char(chunkExponent));
    out.append(salt);
    out.append(commitment);
    Q_ASSERT(out.size() == kHeaderSize);
    return out;
}

QByteArray associatedData(QByteArrayView header, const ObjectBinding &binding)
{
    QByteArray out(header.toByteArray());
    appendString(out, binding.workspaceId);
    appendString(out, binding.objectName);
    out.append(9, '\0');
    return out;
}

void setChunk(quint64 index, bool final, char *nonce, QByteArray &associatedData)
{
    // nonce = 11-byte big-endian chunk index || final flag
    nonce[0] = nonce[1] = nonce[2] = 0;
    qToBigEndian(index, nonce + 3);
    nonce[11] = final ? 1 : 0;
    // associated data ends with the 8-byte big-endian chunk index || final flag
    char *tail = associatedData.data() + associatedData.size() - 9;
    qToBigEndian(index, tail);
    tail[8] = final ? 1 : 0;
}

} // namespace isolation::objectformat
