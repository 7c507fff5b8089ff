#include "nestedrepos.h"

#include "direntries.h"

#include <QFile>

#include <algorithm>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

// One directory, open as `fd` (taken): its subdirectories are read the same way, unless it holds
// a `.git` itself (then it is a nested repository and `relative` is recorded). Directories are
// opened relative to their parent and never through a symbolic link (O_NOFOLLOW), and the type of
// an entry comes from the listing (d_type), so a directory costs one open and a listing, a file
// nothing: this runs on every save, over every directory of the tree.
void scanDir(int fd, const QByteArray &relative, bool root, QStringList &found)
{
    DIR *dir = ::fdopendir(fd);
    if (!dir) {
        ::close(fd);
        return;
    }
    QList<QByteArray> subdirs;
    bool nested = false;
    while (const dirent *e = ::readdir(dir)) {
        const char *name = e->d_name;
        if (direntries::isDotOrDotDot(name))
            continue;
        if (std::strcmp(name, ".git") == 0) {
            if (!root) {
                nested = true;
                break;
            }
            continue; // the workspace's own
        }
        if (direntries::isDirectory(dir, e))
            subdirs.append(QByteArray(name));
    }
    if (nested) {
        found.append(QFile::decodeName(relative));
        ::closedir(dir);
        return;
    }
    for (const QByteArray &name : std::as_const(subdirs)) {
        const int child = ::openat(::dirfd(dir), name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child < 0)
            continue; // gone meanwhile, or not readable: as the walk before it, skipped
        scanDir(child, root ? name : relative + '/' + name, false, found);
    }
    ::closedir(dir);
}

} // namespace

NestedRepos NestedRepos::scan(const QString &workTree)
{
    NestedRepos result;
    const int fd = ::open(QFile::encodeName(workTree).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0)
        scanDir(fd, QByteArray(), true, result.m_dirs);
    std::sort(result.m_dirs.begin(), result.m_dirs.end());
    return result;
}

bool NestedRepos::covers(const QString &path) const
{
    // The sorted list makes the candidate the last entry not greater than `path`.
    auto it = std::upper_bound(m_dirs.cbegin(), m_dirs.cend(), path);
    while (it != m_dirs.cbegin()) {
        --it;
        if (path == *it || (path.startsWith(*it) && path.at(it->size()) == QLatin1Char('/')))
            return true;
        // Only a prefix of `path` can cover it; stop once entries no longer share its first char.
        if (!it->isEmpty() && !path.startsWith(it->at(0)))
            break;
    }
    return false;
}

QByteArray NestedRepos::ignoreRule(const QString &dir)
{
    const QByteArray bytes = QFile::encodeName(dir);
    if (bytes.contains('\n') || bytes.contains('\r'))
        return {};
    QByteArray rule = "/";
    for (const char c : bytes) {
        if (c == '\\' || c == '*' || c == '?' || c == '[' || c == ']' || c == ' ' || c == '\t' || c == '!' || c == '#')
            rule += '\\';
        rule += c;
    }
    rule += '/';
    return rule;
}

} // namespace isolation
