// Nested repositories in a worktree: every directory below the root holding a `.git` (directory or
// file) is a separate repository, kept out of the workspace's status, commits and bundles.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace isolation {

class NestedRepos
{
public:
    // Walks `workTree` without following symbolic links and without descending into a nested
    // repository once found. A `.git` directly in the root is not a nested repository (libgit2
    // never tracks `.git` paths anyway).
    static NestedRepos scan(const QString &workTree);

    // Relative, '/'-separated, sorted.
    const QStringList &dirs() const { return m_dirs; }
    bool isEmpty() const { return m_dirs.isEmpty(); }
    // True when `path` (relative, '/'-separated) is a nested repository or lies inside one.
    bool covers(const QString &path) const;

    // A gitignore rule matching exactly the directory `dir`, or empty when the name cannot be
    // written as one (a line break in it); such directories are still filtered by covers().
    static QByteArray ignoreRule(const QString &dir);

private:
    QStringList m_dirs;
};

} // namespace isolation
