#include "objectlinker.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <QSet>

#include <cerrno>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

struct UniqueFd
{
    int fd;
    ~UniqueFd() { ::close(fd); }
};

bool isHex(const char *name, int length)
{
    for (int i = 0; i < length; ++i) {
        const char c = name[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return name[length] == 0;
}
bool isFanout(const char *name)
{
    return isHex(name, 2);
}
bool isLooseName(const char *name)
{
    return isHex(name, 38);
}

// The names in directory `name` below `dirFd` (`dirFd` itself when null) that `keep` accepts;
// empty when it cannot be read (or is not there).
QList<QByteArray> listing(int dirFd, const char *name, bool (*keep)(const char *))
{
    QList<QByteArray> out;
    const int fd = name ? ::openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : ::dup(dirFd);
    if (fd < 0)
        return out;
    DIR *dir = ::fdopendir(fd);
    if (!dir) {
        ::close(fd);
        return out;
    }
    if (!name)
        ::rewinddir(dir); // a dup shares its offset with the original
    while (const dirent *e = ::readdir(dir)) {
        if (keep(e->d_name))
            out.append(QByteArray(e->d_name));
    }
    ::closedir(dir);
    return out;
}

// Puts `from` at `to` (which must not exist yet): a hard link, else a copy renamed into place.
Result<void, WorkspaceError> place(const QString &from, const QString &to, LinkStats &stats)
{
    const QByteArray src = QFile::encodeName(from);
    const QByteArray dst = QFile::encodeName(to);
    if (::link(src.constData(), dst.constData()) == 0 || errno == EEXIST)
        return {};
    if (errno != EXDEV && errno != EPERM && errno != EMLINK && errno != ENOTSUP && errno != EACCES)
        return WorkspaceError::failed(QStringLiteral("cannot link %1 to %2: %3").arg(from, to, qt_error_string(errno)));
    // Another file system (or one without hard links): a copy, named only once it is whole.
    const QString temp = to + QStringLiteral(".copy-tmp");
    QFile::remove(temp);
    if (!QFile::copy(from, temp))
        return WorkspaceError::failed(QStringLiteral("cannot copy %1 to %2").arg(from, temp));
    if (::rename(QFile::encodeName(temp).constData(), dst.constData()) != 0) {
        const QString why = qt_error_string(errno);
        QFile::remove(temp);
        return WorkspaceError::failed(QStringLiteral("cannot install %1: %2").arg(to, why));
    }
    ++stats.copied;
    return {};
}

Result<LinkStats, WorkspaceError> linkChanged(
    const QString &fromGitDir, const QString &toGitDir, const QDateTime &changedSince)
{
    static const QRegularExpression packIndex(QStringLiteral("^pack-[0-9a-f]{40}\\.idx$"));
    LinkStats stats;
    const qint64 sinceMs = changedSince.isValid() ? changedSince.toMSecsSinceEpoch() : 0;
    const QString from = fromGitDir + QStringLiteral("/objects");
    const QString to = toGitDir + QStringLiteral("/objects");

    const QDir fromPacks(from + QStringLiteral("/pack"));
    const QString toPacks = to + QStringLiteral("/pack");
    if (!QDir().mkpath(toPacks))
        return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(toPacks));
    for (const QString &idx : fromPacks.entryList({QStringLiteral("pack-*.idx")}, QDir::Files, QDir::Name)) {
        if (!packIndex.match(idx).hasMatch())
            continue;
        const QString pack = idx.chopped(4) + QStringLiteral(".pack");
        if (!fromPacks.exists(pack) || QFileInfo::exists(toPacks + QLatin1Char('/') + idx))
            continue;
        // The data first, its index second: git reads a pack only through its index.
        for (const QString &name : {pack, idx}) {
            const QString target = toPacks + QLatin1Char('/') + name;
            if (QFileInfo::exists(target))
                continue;
            if (auto r = place(fromPacks.filePath(name), target, stats); !r)
                return r.error();
            stats.bytes += QFileInfo(target).size();
        }
        ++stats.packs;
    }

    // Loose objects: directory descriptors and one listing of each side, not a path lookup per
    // object (this runs at the end of every save, where a lookup costs what the save itself does).
    const int fromFd = ::open(QFile::encodeName(from).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fromFd < 0)
        return stats; // no loose objects at all
    const UniqueFd fromObjects(fromFd);
    const int toFd = ::open(QFile::encodeName(to).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (toFd < 0)
        return WorkspaceError::failed(QStringLiteral("cannot open %1: %2").arg(to, qt_error_string(errno)));
    const UniqueFd toObjects(toFd);
    for (const QByteArray &dir : listing(fromObjects.fd, nullptr, isFanout)) {
        if (changedSince.isValid()) {
            struct stat st
            {
            };
            if (::fstatat(fromObjects.fd, dir.constData(), &st, 0) == 0
                && qint64(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000 < sinceMs)
                continue;
        }
        ++stats.directoriesRead;
        const QList<QByteArray> names = listing(fromObjects.fd, dir.constData(), isLooseName);
        if (names.isEmpty())
            continue;
        const QList<QByteArray> present = listing(toObjects.fd, dir.constData(), isLooseName);
        const QSet<QByteArray> there(present.cbegin(), present.cend());
        const QString sourceDir = from + QLatin1Char('/') + QString::fromLatin1(dir);
        const QString targetDir = to + QLatin1Char('/') + QString::fromLatin1(dir);
        bool made = !present.isEmpty();
        for (const QByteArray &name : names) {
            if (there.contains(name))
                continue;
            if (!made && ::mkdirat(toObjects.fd, dir.constData(), 0777) != 0 && errno != EEXIST)
                return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(targetDir));
            made = true;
            const QString target = targetDir + QLatin1Char('/') + QString::fromLatin1(name);
            if (auto r = place(sourceDir + QLatin1Char('/') + QString::fromLatin1(name), target, stats); !r)
                return r.error();
            stats.bytes += QFileInfo(target).size();
            ++stats.loose;
        }
    }
    return stats;
}

// The file system's time now, as it stamps files under `path`'s directory: `path` (created if
// needed) has its times set to now and read back. Invalid when that cannot be done.
QDateTime fileSystemNow(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return {};
    const UniqueFd file(fd);
    struct stat st
    {
    };
    if (::futimens(file.fd, nullptr) != 0 || ::fstat(file.fd, &st) != 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(qint64(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000, Qt::UTC);
}

} // namespace

Result<LinkStats, WorkspaceError> ObjectLinker::link(const QString &fromGitDir, const QString &toGitDir)
{
    return linkChanged(fromGitDir, toGitDir, {});
}

Result<LinkStats, WorkspaceError> ObjectLinker::linkSince(
    const QString &fromGitDir, const QString &toGitDir, const QString &destination, LinkMark &mark)
{
    // The start of this link in the file system's own time, the clock and the granularity the
    // fan-out directories' times come from (the kernel's coarse clock, a 2 s step on FAT, the
    // server's clock on NFS): a file of ours set to "now" and read back. A directory changed from
    // here on has a time at or after it; one changed before it and listed now, one before.
    const QDateTime start = fileSystemNow(fromGitDir + QStringLiteral("/objects/isolation-link-mark"));
    const bool known = start.isValid() && !destination.isEmpty() && mark.destination == destination
        && mark.since.isValid() && mark.since <= start; // not when that clock went back
    auto linked = linkChanged(fromGitDir, toGitDir, known ? mark.since : QDateTime());
    if (linked && start.isValid())
        mark = {destination, start};
    else
        mark = {};
    return linked;
}

} // namespace isolation
