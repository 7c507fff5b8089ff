// The real git CLI for the workspace tests, run with a clean configuration (no user or system
// config), plus file helpers: write, read, and byte-for-byte snapshots of directory trees.
#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>

namespace isolation::test {

struct GitRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    bool ok() const { return exitCode == 0; }
    QString describe() const;
};

class GitCli
{
public:
    // Runs `git args...` in `cwd` (the current directory when empty), feeding `input` to stdin.
    // `env` overrides the defaults (a fixed test author among them).
    static GitRun run(const QStringList &args, const QString &cwd = {}, const QByteArray &input = {},
        const QMap<QString, QString> &env = {});
    // Same, for a repository whose git dir and worktree are apart.
    static GitRun inRepo(const QString &gitDir, const QStringList &args, const QString &workTree = {});
    // The trimmed stdout of a command that must succeed (empty on failure, with a warning).
    static QByteArray out(const QStringList &args, const QString &cwd = {});

    static bool writeFile(const QString &path, const QByteArray &bytes);
    static QByteArray readFile(const QString &path);
    // Every file below `root` (relative path → bytes; symbolic links as "-> target"), skipping
    // the relative paths starting with any of `skip`.
    static QMap<QString, QByteArray> snapshot(const QString &root, const QStringList &skip = {});
    // Every file below `root` but those whose relative path starts with `skip`, by kind: "x" an
    // executable file, "f" another file, "l" a symbolic link (the modes a checkout must keep).
    static QMap<QString, QString> kinds(const QString &root, const QString &skip = {});
};

} // namespace isolation::test
