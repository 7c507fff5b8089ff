#include "mountpolicy.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <memory>

namespace isolation {

namespace {

// realpath(3): every symlink resolved, every component required to exist.
QString realPath(const QString &path)
{
    std::unique_ptr<char, decltype(&std::free)> resolved(
        ::realpath(QFile::encodeName(path).constData(), nullptr), &std::free);
    return resolved ? QFile::decodeName(resolved.get()) : QString();
}

bool isSocket(const QString &path)
{
    struct stat st
    {
    };
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 && S_ISSOCK(st.st_mode);
}

} // namespace

MountPolicy::MountPolicy(QString sessionDirectory)
    : m_configured(std::move(sessionDirectory))
    , m_root(realPath(m_configured))
{ }

Result<QString> MountPolicy::check(const QString &hostPath) const
{
    if (m_root.isEmpty())
        return Error::invalidInput(
            QStringLiteral("the session directory %1 does not exist; no host path may be mounted").arg(m_configured));
    if (hostPath.isEmpty() || !QDir::isAbsolutePath(hostPath))
        return Error::invalidInput(QStringLiteral("refusing to mount %1: host paths must be absolute").arg(hostPath));
    const QString real = realPath(hostPath);
    if (real.isEmpty())
        return Error::invalidInput(QStringLiteral("refusing to mount %1: it does not exist").arg(hostPath));
    if (isSocket(real))
        return Error::invalidInput(
            QStringLiteral("refusing to mount %1: it is a socket (the Docker socket never goes into a sandbox)")
                .arg(hostPath));
    if (real == m_root || real.startsWith(m_root + QLatin1Char('/'))) {
        if (real == m_root)
            return Error::invalidInput(
                QStringLiteral("refusing to mount %1: it is the whole session directory, not one session's")
                    .arg(hostPath));
        return real;
    }
    const QString via
        = real == QDir::cleanPath(hostPath) ? QString() : QStringLiteral(" (it resolves to %1)").arg(real);
    return Error::invalidInput(
        QStringLiteral("refusing to mount %1%2: only paths inside the session directory %3 may be "
                       "mounted into a sandbox")
            .arg(hostPath, via, m_root));
}

} // namespace isolation
