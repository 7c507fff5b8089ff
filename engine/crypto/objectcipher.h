// Encrypted objects of workspace bundles: the workspace key, streaming ObjectEncryptor/ObjectDecryptor
// (AES-256-GCM over 64 KiB..1 MiB chunks, key commitment, bound to workspace, name and kind) and
// one-shot helpers. The byte format is in docs/formats.md, "Encrypted object format".
#pragma once

#include "cryptoerror.h"
#include "objectdecryptor.h"
#include "objectencryptor.h"
#include "objectformat.h"
#include "securebytes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace isolation {

// HKDF-SHA256 of the member key and the workspace id: the 32-byte key every object of the workspace
// is derived from. Any member key length is accepted (it should carry at least 32 bytes of entropy).
SecureBytes workspaceKey(QByteArrayView memberKey, const QString &workspaceId);

// The whole object in memory, for small objects (manifests); same format and errors as the streaming classes.
CryptoResult<QByteArray> encryptObject(
    QByteArrayView workspaceKey, const ObjectBinding &binding, QByteArrayView plaintext);
CryptoResult<QByteArray> decryptObject(
    QByteArrayView workspaceKey, const ObjectBinding &binding, QByteArrayView ciphertext);

} // namespace isolation
