#include "worktreewatch.h"

#include "direntries.h"
#include "gitsupport.h"

#include "core/clock.h"

#include <QFile>
#include <QLoggingCategory>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

// What a save needs to hear about: contents (modify, close after writing), modes and times
// (attrib), names (create, delete, move). Events of a child already unlinked are of no interest.
constexpr uint32_t kMask = IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_EXCL_UNLINK | IN_ONLYDIR | IN_DONT_FOLLOW;

// Beyond this many distinct paths between two saves (a dependency install, a build), a whole scan
// costs less than the list, and the memory stays bounded.
constexpr qsizetype kMaxPending = 20000;

// Even with every event heard, a whole scan now and then: writes the kernel does not report to a
// directory watch (through a memory mapping, or a hard link elsewhere) reach a save this late at most.
constexpr std::chrono::minutes kWholeScanEvery {10};

} // namespace

WorktreeWatch::WorktreeWatch(QString workTree, const Clock &clock, int maxDirectories)
    : m_root(QFile::encodeName(workTree))
    , m_clock(clock)
    , m_maxDirectories(maxDirectories)
{
    while (m_root.size() > 1 && m_root.endsWith('/'))
        m_root.chop(1);
    // Off by hand: a worktree on a file system whose changes inotify does not report (a network or
    // FUSE mount), or to measure what the watch saves.
    m_disabled = qEnvironmentVariable("ISOLATION_WORKTREE_WATCH") == QLatin1String("off");
}

WorktreeWatch::~WorktreeWatch()
{
    stop();
}

std::optional<WorktreeWatch::Stamp> WorktreeWatch::stampOf(const QString &path)
{
    struct stat st
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return std::nullopt;
    Stamp s;
    s.dev = st.st_dev;
    s.ino = st.st_ino;
    s.size = st.st_size;
    s.mtimeNs = qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    s.ctimeNs = qint64(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    return s;
}

WorktreeWatch::Changes WorktreeWatch::take(const QString &indexPath)
{
    Changes c;
    if (m_disabled) {
        c.why = QStringLiteral("the worktree is not watched (kernel limits, or ISOLATION_WORKTREE_WATCH=off)");
        return c;
    }
    if (m_fd >= 0)
        drain(); // (which starts the watch again when it must, and that can fail)
    if (m_fd < 0) {
        if (m_everything.isEmpty())
            m_everything = QStringLiteral("the first save the watch sees");
        QString why;
        if (!start(why)) {
            c.why = why;
            return c;
        }
    }
    // Directories that appeared are watched before the answer: what is written in them from now on
    // is heard, what was written before is in the scan of the directory, which is pending.
    const QList<QByteArray> fresh = std::exchange(m_newDirs, {});
    for (const QByteArray &dir : fresh) {
        if (!watchTree(dir)) {
            c.why = QStringLiteral("the worktree is not watched (kernel limits)");
            return c;
        }
    }
    if (m_everything.isEmpty()) {
        if (!m_settled)
            m_everything = QStringLiteral("no save has used the watch yet");
        else if (stampOf(indexPath) != m_settled)
            m_everything = QStringLiteral("the index was written by something other than a save");
        else if (m_clock.monotonicMs() - m_lastWholeMs >= std::chrono::milliseconds(kWholeScanEvery).count())
            m_everything = QStringLiteral("ten minutes since the last whole scan");
    }
    if (!m_everything.isEmpty()) {
        c.why = m_everything;
        c.directories = true;
        return c;
    }
    c.everything = false;
    c.directories = m_directories;
    c.paths = m_pending.values();
    std::sort(c.paths.begin(), c.paths.end());
    return c;
}

void WorktreeWatch::settle(const QString &indexPath, bool everything)
{
    if (m_disabled || m_fd < 0)
        return;
    m_pending.clear();
    m_directories = false;
    m_everything.clear();
    m_settled = stampOf(indexPath);
    if (everything)
        m_lastWholeMs = m_clock.monotonicMs();
}

bool WorktreeWatch::start(QString &why)
{
    m_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (m_fd < 0) {
        why = QStringLiteral("cannot watch the worktree: %1 (fs.inotify.max_user_instances)")
                  .arg(QString::fromLocal8Bit(std::strerror(errno)));
        m_disabled = true;
        qCWarning(lcWorkspace).noquote() << why << "- every save scans the whole worktree";
        return false;
    }
    if (!watchTree(QByteArray())) {
        why = QStringLiteral("the worktree is not watched (kernel limits)");
        return false;
    }
    if (m_dirs.key(QByteArray(), -1) < 0) {
        // The worktree's directory is not there (deleted, being made again): the next save tries again.
        why = QStringLiteral("the worktree's directory cannot be watched");
        stop();
        return false;
    }
    return true;
}

void WorktreeWatch::stop()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_dirs.clear();
    m_newDirs.clear();
}

void WorktreeWatch::restart(const QString &why)
{
    stop();
    m_pending.clear();
    m_everything = why;
    QString failed;
    start(failed);
}

// Watches `relative` and, when it was not watched yet, every directory below it (but `.git`
// directories: a nested repository's git data is never saved). The watch comes before the
// listing, so a directory made meanwhile is either listed or reported. False when the kernel's
// limit on watches is reached: the watch is then given up for good.
bool WorktreeWatch::watchTree(const QByteArray &relative)
{
    QList<QByteArray> todo {relative};
    while (!todo.isEmpty()) {
        const QByteArray rel = todo.takeLast();
        const QByteArray abs = rel.isEmpty() ? m_root : m_root + '/' + rel;
        const int wd = ::inotify_add_watch(m_fd, abs.constData(), kMask);
        if (wd < 0) {
            if (errno == ENOSPC || errno == ENOMEM) {
                const QString why = QString::fromLocal8Bit(std::strerror(errno));
                stop();
                m_disabled = true;
                qCWarning(lcWorkspace).noquote()
                    << "cannot watch every directory of" << QFile::decodeName(m_root) << ":" << why
                    << "(fs.inotify.max_user_watches) - every save scans the whole worktree";
                return false;
            }
            continue; // gone, not a directory, not readable: a scan of it finds the same
        }
        const auto known = m_dirs.constFind(wd);
        if (known != m_dirs.cend() && *known == rel)
            continue; // watched already, and so is everything below it
        m_dirs.insert(wd, rel);
        if (m_dirs.size() > m_maxDirectories) {
            stop(); // every watch given back
            m_disabled = true;
            qCInfo(lcWorkspace).noquote() << QFile::decodeName(m_root) << "has more than" << m_maxDirectories
                                          << "directories: not watched, every save scans the whole worktree";
            return false;
        }
        const int fd = ::open(abs.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        DIR *dir = ::fdopendir(fd);
        if (!dir) {
            ::close(fd);
            continue;
        }
        while (const dirent *e = ::readdir(dir)) {
            if (direntries::isDotOrDotDot(e->d_name) || std::strcmp(e->d_name, ".git") == 0)
                continue;
            if (direntries::isDirectory(dir, e))
                todo.append(rel.isEmpty() ? QByteArray(e->d_name) : rel + '/' + e->d_name);
        }
        ::closedir(dir);
    }
    return true;
}

void WorktreeWatch::note(QByteArray path)
{
    if (!m_everything.isEmpty())
        return;
    if (m_pending.size() >= kMaxPending) {
        m_everything = QStringLiteral("more than %1 paths changed").arg(kMaxPending);
        m_pending.clear();
        return;
    }
    m_pending.insert(std::move(path));
}

// Reads every event the kernel holds now. An event is queued before the write that caused it
// returns, so what was written before a save began is in here.
void WorktreeWatch::drain()
{
    alignas(inotify_event) char buf[64 * 1024];
    QString again; // non-empty: the watch is made anew (its map of directories may be wrong)
    while (again.isEmpty()) {
        const ssize_t n = ::read(m_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            again = QStringLiteral("the watch could not be read: %1")
                        .arg(QString::fromLocal8Bit(std::strerror(n < 0 ? errno : EIO)));
            break;
        }
        for (const char *p = buf; p < buf + n;) {
            const auto *e = reinterpret_cast<const inotify_event *>(p);
            p += sizeof(inotify_event) + e->len;
            if (e->mask & IN_Q_OVERFLOW) {
                again = QStringLiteral("more changes than the kernel keeps between two saves");
                break;
            }
            const auto dirIt = m_dirs.constFind(e->wd);
            if (dirIt == m_dirs.cend())
                continue; // a watch already removed
            const QByteArray dir = *dirIt;
            if (e->mask & IN_IGNORED) {
                m_dirs.remove(e->wd);
                if (dir.isEmpty())
                    again = QStringLiteral("the worktree's directory went");
                continue;
            }
            if (e->mask & IN_UNMOUNT) {
                again = QStringLiteral("a file system below the worktree was unmounted");
                break;
            }
            if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
                if (dir.isEmpty())
                    again = QStringLiteral("the worktree's directory was moved or deleted");
                continue; // below the root, the parent reports it by name
            }
            if (e->len == 0)
                continue; // about the directory itself: its parent reports it by name
            const QByteArray name(e->name); // NUL-padded
            const bool isDir = e->mask & IN_ISDIR;
            if (isDir && (e->mask & (IN_MOVED_FROM | IN_MOVED_TO))) {
                // Every watch below it now has a wrong path (or is outside the worktree).
                again = QStringLiteral("a directory was moved");
                break;
            }
            const QByteArray path = dir.isEmpty() ? name : dir + '/' + name;
            if (name == ".gitignore" || name == ".gitattributes") {
                // What is ignored, or how a file is read, may have changed for paths not touched.
                if (m_everything.isEmpty())
                    m_everything = QStringLiteral("%1 changed").arg(QFile::decodeName(path));
            }
            const bool gitDir = name == ".git";
            if (gitDir)
                m_directories = true; // a nested repository may have appeared or gone
            if (isDir) {
                m_directories = true;
                if ((e->mask & (IN_CREATE | IN_ATTRIB)) && !gitDir)
                    m_newDirs.append(path); // watched before the next answer (if not yet); never git's data
            }
            note(path);
        }
    }
    if (!again.isEmpty())
        restart(again);
}

} // namespace isolation
