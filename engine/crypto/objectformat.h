// The encrypted object format of workspace bundles (docs/formats.md, "Encrypted object format"):
// its constants, header, key derivation, and per-chunk nonce and associated data. Shared by
// ObjectEncryptor and ObjectDecryptor; callers use objectcipher.h.
#pragma once

#include "cryptoerror.h"
#include "securebytes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace isolation {

// What an encrypted object is bound to: decrypting it under any other binding fails.
struct ObjectBinding
{
    QString workspaceId;
    QString objectName;
    enum class Kind : quint8 { Manifest = 1, Segment = 2 } kind = Kind::Segment;
};

namespace objectformat {

inline constexpr char kMagic[4] = {'I', 'S', 'O', 'B'};
inline constexpr quint8 kVersion = 1;
inline constexpr qsizetype kSaltSize = 32;
inline constexpr qsizetype kCommitmentSize = 32;
inline constexpr qsizetype kHeaderSize = 4 + 1 + 1 + 1 + kSaltSize + kCommitmentSize; // 71
inline constexpr qsizetype kTagSize = 16;
inline constexpr qsizetype kNonceSize = 12;
inline constexpr qsizetype kKeySize = 32; // workspace key and object key
inline constexpr int kMinChunkExponent = 16; // 64 KiB
inline constexpr int kMaxChunkExponent = 20; // 1 MiB

// The chunk-size exponent of a chunk size, or -1 when it is not a power of two in 64 KiB..1 MiB.
int chunkExponent(qsizetype chunkSize);

// The object key and its commitment, both from the workspace key and the object's salt.
struct ObjectKeys
{
    SecureBytes key;
    QByteArray commitment; // public: it goes into the header
};
CryptoResult<ObjectKeys> deriveKeys(QByteArrayView workspaceKey, QByteArrayView salt);

QByteArray header(ObjectBinding::Kind kind, int chunkExponent, QByteArrayView salt, QByteArrayView commitment);

// header || binding || 9 bytes that setChunk fills in per chunk.
QByteArray associatedData(QByteArrayView header, const ObjectBinding &binding);

// Writes chunk index and final flag into the nonce and the last 9 bytes of the associated data.
void setChunk(quint64 index, bool final, char *nonce, QByteArray &associatedData);

} // namespace objectformat
} // namespace isolation
