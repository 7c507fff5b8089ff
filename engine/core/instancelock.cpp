#include "instancelock.h"

#include "storagefault.h"

#include <QFileInfo>

namespace isolation {

InstanceLock::InstanceLock(const QString &lockFile)
    : m_lock(std::make_unique<QLockFile>(lockFile))
{
    // Never treat a live engine's lock as stale because of its age; only a dead pid frees it.
    m_lock->setStaleLockTime(0);
}

InstanceLock::~InstanceLock()
{
    release();
}

Status InstanceLock::acquire()
{
    if (m_lock->isLocked())
        return {};
    if (m_lock->tryLock(0))
        return {};
    qint64 pid = 0;
    QString host, app;
    m_lock->getLockInfo(&pid, &host, &app);
    switch (m_lock->error()) {
    case QLockFile::LockFailedError:
        return Error::unavailable(
            QStringLiteral("another engine (pid %1) is already running for this state directory").arg(pid));
    case QLockFile::PermissionError:
        return Error::failed(QStringLiteral("cannot take the lock file %1: %2")
                                 .arg(m_lock->fileName(),
                                     storageFaultText(storageFaultAt(m_lock->fileName()) == StorageFault::ReadOnly
                                             ? StorageFault::ReadOnly
                                             : StorageFault::Denied,
                                         QFileInfo(m_lock->fileName()).path())));
    default:
        // QLockFile says UnknownError for a disk too full to write its few bytes.
        if (const StorageFault fault = storageFaultAt(m_lock->fileName()); fault != StorageFault::None)
            return Error::failed(QStringLiteral("cannot take the lock file %1: %2")
                                     .arg(m_lock->fileName(), storageFaultText(fault, QFileInfo(m_lock->fileName()).path())));
        return Error::failed(QStringLiteral("cannot take the lock file %1").arg(m_lock->fileName()));
    }
}

void InstanceLock::release()
{
    if (m_lock && m_lock->isLocked())
        m_lock->unlock();
}

bool InstanceLock::held() const
{
    return m_lock->isLocked();
}

} // namespace isolation
