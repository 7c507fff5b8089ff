// Looking for canary secrets where they must never be: the command line of every process, every
// regular file below a directory, every object of a git repository (unreachable ones included,
// through `git cat-file --batch-all-objects`), and any bytes a test hands over. Tests only.
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

namespace isolation::test {

class CanaryScan
{
public:
    // Each canary is looked for as it is and in base64 (HTTP Basic carries it so).
    explicit CanaryScan(const QList<QByteArray> &canaries);

    // "pid: command line" of each process whose /proc/PID/cmdline holds a canary.
    QStringList commandLines() const;
    // Paths of regular files below `root` holding a canary (symbolic links not followed).
    // `scanned` counts the files read.
    QStringList files(const QString &root, int *scanned = nullptr) const;
    // Files below the temporary directory in entries changed since `since` (the tool machinery's
    // own entries, bash_*, left alone).
    QStringList temporaryFiles(const QDateTime &since, int *scanned = nullptr) const;
    // Object ids (and types) of the repository's objects holding a canary.
    QStringList gitObjects(const QString &gitDir, int *scanned = nullptr) const;
    bool holds(const QByteArray &data) const;

private:
    QList<QByteArray> m_needles;
};

} // namespace isolation::test
