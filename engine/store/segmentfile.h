// Segment files: a git bundle on disk sealed into the encrypted object format (kind Segment,
// object name "segment/<id>") and named by the SHA-256 of the sealed bytes; and opened again,
// checking name and size before decrypting. Blocking file and crypto work: run it off the GUI
// thread (WorkspaceStore does, on the thread pool).
#pragma once

#include "segmentstream.h"

#include "crypto/objectformat.h"
#include "crypto/securebytes.h"
#include "storeerror.h"

#include <QString>

namespace isolation {

struct SealedSegment
{
    QString name; // 64 hex digits: SHA-256 of the sealed file
    qint64 size = 0; // bytes of the sealed file
};

// Encrypts `plainPath` into `sealedPath` (created 0600, replaced). On failure `sealedPath` is removed.
StoreResult<SealedSegment> sealSegmentFile(
    const SecureBytes &workspaceKey, const ObjectBinding &binding, const QString &plainPath, const QString &sealedPath);

// Checks that `sealedPath` is `expected` (SHA-256 and size) and decrypts it into `outPath`,
// which appears (atomically) only when everything verified. Refused when anything does not.
StoreResult<void> openSegmentFile(const SecureBytes &workspaceKey, const ObjectBinding &binding,
    const QString &sealedPath, const SealedSegment &expected, const QString &outPath);

// Reads `stream`'s plaintext into `outPath`, which appears (atomically) only when the stream
// reached its verified end. Blocks while the stream's download is behind.
StoreResult<void> saveSegment(SegmentStream &stream, const QString &outPath);

// SHA-256 of a file in lowercase hex, or empty when it cannot be read.
QString sha256OfFile(const QString &path);

} // namespace isolation
