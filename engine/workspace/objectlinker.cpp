#include "objectlinker.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace isolation {

namespace {

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
    static const QRegularExpression fanout(QStringLiteral("^[0-9a-f]{2}$"));
    static const QRegularExpression looseName(QStringLiteral("^[0-9a-f]{38}$"));
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

    const QDir fromObjects(from);
    for (const QString &dir : fromObjects.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (!fanout.match(dir).hasMatch())
            continue;
        if (changedSince.isValid()) {
            // stat(2) itself: QFileInfo's times go through the local time zone, a file read each time.
            struct stat st
            {
            };
            if (::stat(QFile::encodeName(fromObjects.filePath(dir)).constData(), &st) == 0
                && qint64(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000 < sinceMs)
                continue;
        }
        ++stats.directoriesRead;
        const QDir source(fromObjects.filePath(dir));
        const QString targetDir = to + QLatin1Char('/') + dir;
        bool made = false;
        for (const QString &name : source.entryList(QDir::Files, QDir::Name)) {
            if (!looseName.match(name).hasMatch())
                continue;
            const QString target = targetDir + QLatin1Char('/') + name;
            if (QFileInfo::exists(target))
                continue;
            if (!made && !QDir().mkpath(targetDir))
                return WorkspaceError::failed(QStringLiteral("cannot create %1").arg(targetDir));
            made = true;
            if (auto r = place(source.filePath(name), target, stats); !r)
                return r.error();
            stats.bytes += QFileInfo(target).size();
            ++stats.loose;
        }
    }
    return stats;
}

} // namespace

Result<LinkStats, WorkspaceError> ObjectLinker::link(const QString &fromGitDir, const QString &toGitDir)
{
    return linkChanged(fromGitDir, toGitDir, {});
}

Result<LinkStats, WorkspaceError> ObjectLinker::linkSince(
    const QString &fromGitDir, const QString &toGitDir, const QString &destination, LinkMark &mark)
{
    // A directory's time has the file system's granularity and its clock may lag ours a little:
    // a margin re-reads the directories changed just before the last link, which costs nothing.
    constexpr qint64 kMarginMs = 2000;
    const QDateTime start = QDateTime::currentDateTimeUtc().addMSecs(-kMarginMs);
    const bool known = !destination.isEmpty() && mark.destination == destination && mark.since.isValid();
    auto linked = linkChanged(fromGitDir, toGitDir, known ? mark.since : QDateTime());
    if (linked)
        mark = {destination, start};
    else
        mark = {};
    return linked;
}

} // namespace isolation
