#include "canaryscan.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>

#include <sys/stat.h>

namespace isolation::test {

CanaryScan::CanaryScan(const QList<QByteArray> &canaries)
{
    for (const QByteArray &c : canaries) {
        m_needles << c << c.toBase64();
        // In base64 of a longer text holding it (HTTP Basic's "user:token") only the groups wholly
        // inside the canary are fixed, one set per alignment: look for those.
        for (int shift = 0; shift < 3; ++shift) {
            const QByteArray encoded = QByteArray(QByteArray(shift, 'x') + c).toBase64();
            const int skip = shift ? 4 : 0;
            m_needles << encoded.mid(skip, encoded.size() - skip - 4);
        }
    }
}

bool CanaryScan::holds(const QByteArray &data) const
{
    for (const QByteArray &needle : m_needles) {
        if (needle.size() >= 8 && data.contains(needle))
            return true;
    }
    return false;
}

QStringList CanaryScan::commandLines() const
{
    QStringList hits;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        bool numeric = false;
        pid.toInt(&numeric);
        if (!numeric)
            continue;
        QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            continue; // gone meanwhile
        QByteArray line = f.readAll();
        if (holds(line))
            hits << pid + QStringLiteral(": ") + QString::fromUtf8(line.replace('\0', ' '));
    }
    return hits;
}

QStringList CanaryScan::files(const QString &root, int *scanned) const
{
    QStringList hits;
    QDirIterator it(
        root, QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        struct stat st;
        if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || !S_ISREG(st.st_mode))
            continue; // links, sockets, FIFOs
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        if (scanned)
            ++*scanned;
        if (holds(f.readAll()))
            hits << path;
    }
    return hits;
}

QStringList CanaryScan::temporaryFiles(const QDateTime &since, int *scanned) const
{
    QStringList hits;
    const QDir tmp(QDir::tempPath());
    const QFileInfoList entries
        = tmp.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    for (const QFileInfo &entry : entries) {
        if (entry.fileName().startsWith(QLatin1String("bash_")) || entry.lastModified() < since || entry.isSymLink())
            continue;
        if (entry.isDir()) {
            hits << files(entry.filePath(), scanned);
        } else if (entry.isFile()) {
            QFile f(entry.filePath());
            if (f.open(QIODevice::ReadOnly)) {
                if (scanned)
                    ++*scanned;
                if (holds(f.readAll()))
                    hits << entry.filePath();
            }
        }
    }
    return hits;
}

QStringList CanaryScan::gitObjects(const QString &gitDir, int *scanned) const
{
    QProcess git;
    git.start(QStringLiteral("git"),
        {QStringLiteral("--git-dir=") + gitDir, QStringLiteral("cat-file"), QStringLiteral("--batch-all-objects"),
            QStringLiteral("--unordered"), QStringLiteral("--batch")});
    if (!git.waitForFinished(120000) || git.exitCode() != 0)
        return {
            QStringLiteral("git cat-file failed in %1: %2").arg(gitDir, QString::fromUtf8(git.readAllStandardError()))};
    const QByteArray out = git.readAllStandardOutput();
    // "<id> <type> <size>\n<content>\n", one after the other.
    QStringList hits;
    qsizetype at = 0;
    while (at < out.size()) {
        const qsizetype eol = out.indexOf('\n', at);
        if (eol < 0)
            break;
        const QList<QByteArray> head = out.mid(at, eol - at).split(' ');
        const qsizetype size = head.value(2).toLongLong();
        const QByteArray content = out.mid(eol + 1, size);
        if (scanned)
            ++*scanned;
        if (holds(content))
            hits << QString::fromLatin1(head.value(0) + ' ' + head.value(1));
        at = eol + 1 + size + 1;
    }
    return hits;
}

} // namespace isolation::test
