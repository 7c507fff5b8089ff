#include "segmentfile.h"

#include "core/storagefault.h"
#include "crypto/objectcipher.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <cerrno>

namespace isolation {

namespace {

constexpr qint64 kPiece = 1024 * 1024;

} // namespace

QString sha256OfFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash sha(QCryptographicHash::Sha256);
    if (!sha.addData(&file))
        return {};
    return QString::fromLatin1(sha.result().toHex());
}

StoreResult<SealedSegment> sealSegmentFile(
    const SecureBytes &workspaceKey, const ObjectBinding &binding, const QString &plainPath, const QString &sealedPath)
{
    QFile in(plainPath);
    if (!in.open(QIODevice::ReadOnly))
        return StoreError::local(QStringLiteral("cannot read %1: %2").arg(plainPath, in.errorString()));
    QFile out(sealedPath);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return StoreError::local(writeFailureText(sealedPath, out.errorString(), errno));
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    auto failed = [&](const QString &why) {
        out.close();
        out.remove();
        return StoreError::local(why);
    };
    ObjectEncryptor encryptor(workspaceKey.view(), binding, &out);
    QByteArray piece;
    while (!in.atEnd()) {
        piece = in.read(kPiece);
        if (piece.isEmpty() && in.error() != QFileDevice::NoError)
            return failed(QStringLiteral("cannot read %1: %2").arg(plainPath, in.errorString()));
        if (CryptoResult<void> ok = encryptor.write(piece); !ok)
            return failed(QStringLiteral("cannot encrypt %1: %2").arg(plainPath, ok.error().message));
    }
    if (CryptoResult<void> ok = encryptor.finish(); !ok)
        return failed(QStringLiteral("cannot encrypt %1: %2").arg(plainPath, ok.error().message));
    if (!out.flush())
        return failed(writeFailureText(sealedPath, out.errorString(), errno));
    out.close();
    SealedSegment sealed {sha256OfFile(sealedPath), QFileInfo(sealedPath).size()};
    if (sealed.name.isEmpty())
        return failed(QStringLiteral("cannot read back %1").arg(sealedPath));
    return sealed;
}

StoreResult<void> openSegmentFile(const SecureBytes &workspaceKey, const ObjectBinding &binding,
    const QString &sealedPath, const SealedSegment &expected, const QString &outPath)
{
    QFile in(sealedPath);
    if (!in.open(QIODevice::ReadOnly))
        return StoreError::local(QStringLiteral("cannot read %1: %2").arg(sealedPath, in.errorString()));
    // The name is the hash of the sealed bytes: checked before anything is decrypted, so a segment
    // renamed or swapped on the hub is refused without a byte of plaintext leaving this function.
    if (in.size() != expected.size || sha256OfFile(sealedPath) != expected.name)
        return StoreError::refused(QStringLiteral("segment %1 of workspace %2 is not what the manifest names (renamed, "
                                                  "swapped or corrupted on the hub)")
                                       .arg(expected.name.left(12), binding.workspaceId));
    QSaveFile out(outPath);
    if (!out.open(QIODevice::WriteOnly))
        return StoreError::local(writeFailureText(outPath, out.errorString(), errno));
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    ObjectDecryptor decryptor(workspaceKey.view(), binding, &out);
    CryptoResult<void> ok;
    while (ok && !in.atEnd()) {
        const QByteArray piece = in.read(kPiece);
        if (piece.isEmpty() && in.error() != QFileDevice::NoError) {
            out.cancelWriting();
            return StoreError::local(QStringLiteral("cannot read %1: %2").arg(sealedPath, in.errorString()));
        }
        ok = decryptor.write(piece);
    }
    if (ok)
        ok = decryptor.finish();
    if (!ok) {
        out.cancelWriting();
        return StoreError::refused(QStringLiteral("segment %1 of workspace %2 does not verify (%3): refusing it")
                                       .arg(expected.name.left(12), binding.workspaceId, ok.error().message));
    }
    if (!out.commit())
        return StoreError::local(QStringLiteral("cannot write %1: %2").arg(outPath, out.errorString()));
    return {};
}

} // namespace isolation
