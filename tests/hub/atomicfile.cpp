#include "atomicfile.h"

#include "crypto/random.h"

#include <QDir>
#include <QFileInfo>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace isolation::hub {

namespace {

const QLatin1String kTempPrefix(".tmp-");

Error systemError(const QString &what, const QString &path)
{
    return Error::failed(QStringLiteral("%1 %2: %3").arg(what, path, QString::fromLocal8Bit(std::strerror(errno))));
}

} // namespace

AtomicFile::AtomicFile(QString target)
    : m_target(std::move(target))
{ }

AtomicFile::~AtomicFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed && !m_temp.isEmpty())
        ::unlink(QFile::encodeName(m_temp).constData());
}

Status AtomicFile::open()
{
    const QFileInfo info(m_target);
    m_temp = info.absolutePath() + QLatin1Char('/') + kTempPrefix + info.fileName() + QLatin1Char('-')
        + QString::fromLatin1(randomBytes(6).toHex());
    m_fd = ::open(QFile::encodeName(m_temp).constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (m_fd < 0) {
        const Error e = systemError(QStringLiteral("cannot create"), m_temp);
        m_temp.clear();
        return e;
    }
    return {};
}

Status AtomicFile::write(QByteArrayView bytes)
{
    if (m_fd < 0)
        return Error::failed(QStringLiteral("%1 is not open for writing").arg(m_target));
    const char *p = bytes.data();
    qsizetype left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(m_fd, p, size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return systemError(QStringLiteral("cannot write"), m_temp);
        }
        p += n;
        left -= n;
        m_size += n;
    }
    return {};
}

Status AtomicFile::commit()
{
    if (m_fd < 0)
        return Error::failed(QStringLiteral("%1 is not open for writing").arg(m_target));
    if (::fsync(m_fd) != 0)
        return systemError(QStringLiteral("cannot sync"), m_temp);
    const int fd = std::exchange(m_fd, -1);
    if (::close(fd) != 0)
        return systemError(QStringLiteral("cannot close"), m_temp);
    if (::rename(QFile::encodeName(m_temp).constData(), QFile::encodeName(m_target).constData()) != 0)
        return systemError(QStringLiteral("cannot rename onto"), m_target);
    m_committed = true;
    return syncDirectory(QFileInfo(m_target).absolutePath());
}

Status AtomicFile::replace(const QString &target, QByteArrayView bytes)
{
    AtomicFile file(target);
    if (auto s = file.open(); !s)
        return s;
    if (auto s = file.write(bytes); !s)
        return s;
    return file.commit();
}

void AtomicFile::removeLeftovers(const QString &dir)
{
    const QStringList names = QDir(dir).entryList({kTempPrefix + QLatin1Char('*')}, QDir::Files | QDir::Hidden);
    for (const QString &name : names)
        QFile::remove(dir + QLatin1Char('/') + name);
}

Status AtomicFile::syncDirectory(const QString &dir)
{
    const int fd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return systemError(QStringLiteral("cannot open"), dir);
    const bool ok = ::fsync(fd) == 0;
    const Error e = ok ? Error() : systemError(QStringLiteral("cannot sync"), dir);
    ::close(fd);
    if (!ok)
        return e;
    return {};
}

} // namespace isolation::hub
