#include "storagefault.h"

#include <QFileInfo>
#include <QStorageInfo>

#include <cerrno>
#include <cstring>

namespace isolation {

StorageFault storageFaultOf(int errnum)
{
    switch (errnum) {
    case ENOSPC:
    case EDQUOT:
        return StorageFault::NoSpace;
    case EROFS:
        return StorageFault::ReadOnly;
    case EACCES:
    case EPERM:
        return StorageFault::Denied;
    default:
        return StorageFault::None;
    }
}

StorageFault storageFaultIn(QStringView message)
{
    // strerror()'s texts, in the C locale the engine runs in (as libgit2 appends them), and
    // Qt's own wording for a full disk.
    static const struct
    {
        int errnum;
        QString text;
    } known[] = {
        {ENOSPC, QString::fromLocal8Bit(std::strerror(ENOSPC))},
        {EDQUOT, QString::fromLocal8Bit(std::strerror(EDQUOT))},
        {EROFS, QString::fromLocal8Bit(std::strerror(EROFS))},
        {EACCES, QString::fromLocal8Bit(std::strerror(EACCES))},
        {EPERM, QString::fromLocal8Bit(std::strerror(EPERM))},
        {ENOSPC, QStringLiteral("No space left on device")},
    };
    for (const auto &k : known) {
        if (!k.text.isEmpty() && message.contains(k.text, Qt::CaseInsensitive))
            return storageFaultOf(k.errnum);
    }
    return StorageFault::None;
}

StorageFault storageFaultAt(const QString &path, int errnum)
{
    if (const StorageFault known = storageFaultOf(errnum); known != StorageFault::None)
        return known;
    if (path.isEmpty())
        return StorageFault::None;
    // The nearest existing directory: the file may not exist (it could not be created).
    QString at = path;
    while (!at.isEmpty() && !QFileInfo::exists(at))
        at = QFileInfo(at).path() == at ? QString() : QFileInfo(at).path();
    const QStorageInfo volume(at.isEmpty() ? QStringLiteral("/") : at);
    if (!volume.isValid())
        return StorageFault::None;
    if (volume.isReadOnly())
        return StorageFault::ReadOnly;
    if (volume.bytesAvailable() >= 0 && volume.bytesAvailable() < 1024 * 1024)
        return StorageFault::NoSpace;
    return StorageFault::None;
}

QString writeFailureText(const QString &path, const QString &detail, int errnum)
{
    StorageFault fault = storageFaultIn(detail);
    if (fault == StorageFault::None)
        fault = storageFaultAt(path, errnum);
    if (fault != StorageFault::None)
        return storageFaultText(fault, path);
    return QStringLiteral("cannot write %1: %2").arg(path, detail);
}

QString storageFaultCode(StorageFault fault)
{
    switch (fault) {
    case StorageFault::NoSpace:
        return QStringLiteral("no_space");
    case StorageFault::ReadOnly:
        return QStringLiteral("read_only");
    case StorageFault::Denied:
        return QStringLiteral("permission_denied");
    case StorageFault::None:
        break;
    }
    return {};
}

QString storageFaultText(StorageFault fault, const QString &path)
{
    const QString where = path.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(path);
    switch (fault) {
    case StorageFault::NoSpace: {
        const QStorageInfo volume(path);
        const QString mount = volume.isValid() ? volume.rootPath() : QString();
        return QStringLiteral("No space left on device%1: free some space%2 and try again; nothing was lost")
            .arg(where, mount.isEmpty() ? QString() : QStringLiteral(" on %1").arg(mount));
    }
    case StorageFault::ReadOnly:
        return QStringLiteral("The file system is read-only%1: make it writable and try again; nothing was lost")
            .arg(where);
    case StorageFault::Denied:
        return QStringLiteral("Permission denied%1: the engine's user must be able to write there; "
                              "fix the permissions and try again")
            .arg(where);
    case StorageFault::None:
        break;
    }
    return {};
}

} // namespace isolation
