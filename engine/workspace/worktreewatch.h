// Which paths of a session's worktree changed since the last save, from the kernel (inotify), so a
// save looks at those paths only instead of every file's stat data (what git's fsmonitor does with
// a watcher beside it). Whenever it cannot be sure, it answers "everything" and the save scans the
// whole worktree as before: on the first save, after the kernel's queue overflowed, after a
// directory moved, after a .gitignore or .gitattributes changed, when the index was written by
// anything but a save, when the watch limit is reached, and at least every ten minutes.
// Not thread-safe: used by the session's worker only, like the Workspace that owns it.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <optional>

#include <sys/types.h>

namespace isolation {

class Clock;

class WorktreeWatch
{
public:
    struct Changes
    {
        bool everything = true; // scan the whole worktree (`why` says why)
        bool directories = false; // a directory appeared or went, or a `.git` did: rescan for nested repositories
        QList<QByteArray> paths; // relative, sorted, unique; what to scan when !everything
        QString why;
    };

    // A worktree of more directories than this is not watched: inotify's watches are shared by every
    // program of the user (an editor's file watcher among them), and such a tree is a dependency
    // install or a build, where a save scans everything anyway.
    static constexpr int kMaxDirectories = 16384;

    // `clock` (for the whole scan every ten minutes) must outlive the watch.
    WorktreeWatch(QString workTree, const Clock &clock, int maxDirectories = kMaxDirectories);
    ~WorktreeWatch();
    WorktreeWatch(const WorktreeWatch &) = delete;
    WorktreeWatch &operator=(const WorktreeWatch &) = delete;

    // What changed since the last settle(), with `indexPath` the index those changes are against.
    // Starts watching (again) when needed, before answering "everything", so nothing written from
    // here on is missed. The changes stay pending until settle().
    Changes take(const QString &indexPath);
    // The changes take() answered are in the index, written to `indexPath`: the next take() is
    // relative to this index (and answers "everything" if someone else writes it meanwhile).
    // `everything`: that save scanned the whole worktree.
    void settle(const QString &indexPath, bool everything);

    // For tests and the log: watched directories, false once the watch gave up (limits).
    int watchedDirectories() const { return int(m_dirs.size()); }
    bool usable() const { return !m_disabled; }

private:
    struct Stamp
    {
        dev_t dev = 0;
        ino_t ino = 0;
        off_t size = -1;
        qint64 mtimeNs = 0;
        qint64 ctimeNs = 0;
        bool operator==(const Stamp &) const = default;
    };
    static std::optional<Stamp> stampOf(const QString &path);

    bool start(QString &why);
    void stop();
    void drain();
    void note(QByteArray path);
    bool watchTree(const QByteArray &relative);
    void restart(const QString &why);

    QByteArray m_root; // encoded, no trailing '/'
    int m_fd = -1;
    bool m_disabled = false;
    QHash<int, QByteArray> m_dirs; // watch descriptor → relative directory ("" for the root)
    QSet<QByteArray> m_pending;
    QList<QByteArray> m_newDirs; // created since the last drain: to watch before answering
    bool m_directories = false;
    QString m_everything; // non-empty: the next answer is "everything", for this reason
    std::optional<Stamp> m_settled;
    const Clock &m_clock;
    int m_maxDirectories;
    qint64 m_lastWholeMs = 0; // on m_clock's monotonic time
};

} // namespace isolation
