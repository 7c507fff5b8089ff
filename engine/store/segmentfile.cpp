#include "segmentfile.h"

#include "core/storagefault.h"
#include "crypto/objectcipher.h"
#include "crypto/sha256.h"

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
    Sha256 sha;
    QByteArray piece(kPiece, Qt::Uninitialized);
    while (true) {
        const qint64 n = file.read(piece.data(), kPiece);
        if (n < 0)
            return {};
        if (n == 0)
            break;
        sha.add(QByteArrayView(piece.constData(), n));
    }
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
    auto spool = SegmentSpool::ofFile(sealedPath);
    if (!spool)
        return spool.error();
    SegmentStream stream(spool.value(), workspaceKey, binding, expected.name, expected.size);
    return saveSegment(stream, outPath);
}

StoreResult<void> saveSegment(SegmentStream &stream, const QString &outPath)
{
    QSaveFile out(outPath);
    if (!out.open(QIODevice::WriteOnly))
        return StoreError::local(writeFailureText(outPath, out.errorString(), errno));
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    std::unique_ptr<QIODevice> in = stream.openReader();
    QByteArray piece(kPiece, Qt::Uninitialized);
    while (true) {
        const qint64 n = in->read(piece.data(), kPiece);
        if (n < 0) {
            out.cancelWriting();
            return stream.error().value_or(StoreError::local(in->errorString()));
        }
        if (n == 0)
            break;
        if (out.write(piece.constData(), n) != n) {
            const int errnum = errno;
            out.cancelWriting();
            return StoreError::local(writeFailureText(outPath, out.errorString(), errnum));
        }
    }
    if (!out.commit())
        return StoreError::local(QStringLiteral("cannot write %1: %2").arg(outPath, out.errorString()));
    return {};
}

} // namespace isolation
