#include "gitcli.h"

#include <QDebug>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

#include <unistd.h>

namespace isolation::test {

QString GitRun::describe() const
{
    return QStringLiteral("exit %1: %2%3").arg(exitCode).arg(QString::fromUtf8(err), QString::fromUtf8(out.left(2000)));
}

GitRun GitCli::run(
    const QStringList &args, const QString &cwd, const QByteArray &input, const QMap<QString, QString> &overrides)
{
    GitRun result;
    const QString git = QStandardPaths::findExecutable(QStringLiteral("git"));
    if (git.isEmpty()) {
        result.err = "git is not installed (./dev installs it)";
        return result;
    }
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    env.insert(QStringLiteral("GIT_CONFIG_GLOBAL"), QStringLiteral("/dev/null"));
    env.insert(QStringLiteral("GIT_AUTHOR_NAME"), QStringLiteral("Test"));
    env.insert(QStringLiteral("GIT_AUTHOR_EMAIL"), QStringLiteral("test@example.invalid"));
    env.insert(QStringLiteral("GIT_COMMITTER_NAME"), QStringLiteral("Test"));
    env.insert(QStringLiteral("GIT_COMMITTER_EMAIL"), QStringLiteral("test@example.invalid"));
    env.insert(QStringLiteral("GIT_TERMINAL_PROMPT"), QStringLiteral("0"));
    env.remove(QStringLiteral("GIT_DIR"));
    env.remove(QStringLiteral("GIT_WORK_TREE"));
    for (auto it = overrides.cbegin(); it != overrides.cend(); ++it)
        env.insert(it.key(), it.value());
    QProcess p;
    p.setProcessEnvironment(env);
    if (!cwd.isEmpty())
        p.setWorkingDirectory(cwd);
    p.start(git, QStringList {QStringLiteral("-c"), QStringLiteral("init.defaultBranch=main")} + args);
    if (!p.waitForStarted(10000)) {
        result.err = "git did not start";
        return result;
    }
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    p.waitForFinished(120000);
    result.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    result.out = p.readAllStandardOutput();
    result.err = p.readAllStandardError();
    return result;
}

GitRun GitCli::inRepo(const QString &gitDir, const QStringList &args, const QString &workTree)
{
    QStringList all {QStringLiteral("--git-dir=") + gitDir};
    if (!workTree.isEmpty())
        all << QStringLiteral("--work-tree=") + workTree;
    return run(all + args, workTree);
}

QByteArray GitCli::out(const QStringList &args, const QString &cwd)
{
    const GitRun r = run(args, cwd);
    if (!r.ok())
        qWarning() << "git" << args << "failed:" << r.describe();
    return r.out.trimmed();
}

bool GitCli::writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QByteArray GitCli::readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QMap<QString, QByteArray> GitCli::snapshot(const QString &root, const QStringList &skip)
{
    QMap<QString, QByteArray> files;
    const QDir base(root);
    QDirIterator it(
        root, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString rel = base.relativeFilePath(path);
        bool skipped = false;
        for (const QString &s : skip)
            skipped = skipped || rel.startsWith(s);
        if (skipped)
            continue;
        const QFileInfo info(path);
        if (info.isSymLink()) {
            char target[4096];
            const ssize_t n = ::readlink(QFile::encodeName(path).constData(), target, sizeof target);
            files.insert(rel, "-> " + QByteArray(target, n > 0 ? qsizetype(n) : 0));
        } else {
            files.insert(rel, readFile(path));
        }
    }
    return files;
}

QMap<QString, QString> GitCli::kinds(const QString &root, const QString &skip)
{
    QMap<QString, QString> out;
    const QDir base(root);
    QDirIterator it(
        root, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString rel = base.relativeFilePath(it.next());
        if (!skip.isEmpty() && rel.startsWith(skip))
            continue;
        const QFileInfo info(it.filePath());
        out.insert(rel,
            info.isSymLink()          ? QStringLiteral("l")
                : info.isExecutable() ? QStringLiteral("x")
                                      : QStringLiteral("f"));
    }
    return out;
}

} // namespace isolation::test
