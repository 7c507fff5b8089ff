#include "sandboxcontrol.h"

#include <QDir>
#include <QFile>
#include <QFileSystemWatcher>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QTimer>

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcSandboxControl, "isolation.sandbox.control")

namespace isolation {

namespace {

constexpr int kMaxEntriesPerScan = 256; // a directory flooded by the sandbox costs one bounded scan
constexpr qsizetype kMaxMessageChars = 1000;

const QRegularExpression &requestName()
{
    static const QRegularExpression re(QStringLiteral("^([A-Za-z0-9][A-Za-z0-9_-]{0,63})\\.(save|sync)$"));
    return re;
}

// One line of printable text: control characters (newlines included) become spaces.
QString oneLine(const QString &text, qsizetype max)
{
    QString out;
    out.reserve(std::min(text.size(), max));
    for (QChar c : text) {
        if (out.size() >= max)
            break;
        out.append(c.category() == QChar::Other_Control || c.category() == QChar::Other_Format ? QChar(u' ') : c);
    }
    return out.trimmed();
}

bool writeAll(int fd, const QByteArray &data)
{
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + done, size_t(data.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

} // namespace

SandboxControl::SandboxControl(QString directory, QObject *parent)
    : QObject(parent)
    , m_dir(QDir::cleanPath(std::move(directory)))
{
}

SandboxControl::~SandboxControl()
{
    if (m_dirFd >= 0)
        ::close(m_dirFd);
}

QString SandboxControl::outcomeWord(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Saved:
        return QStringLiteral("saved");
    case Outcome::Unchanged:
        return QStringLiteral("unchanged");
    case Outcome::MovedOn:
        return QStringLiteral("moved-on");
    case Outcome::Refused:
        return QStringLiteral("refused");
    case Outcome::Synced:
        return QStringLiteral("synced");
    case Outcome::Conflict:
        return QStringLiteral("conflict");
    case Outcome::Failed:
        break;
    }
    return QStringLiteral("failed");
}

namespace {

// The part of both scripts that asks and waits: `@VERB@` is save or sync. POSIX sh and coreutils
// or busybox only: the sandbox image is anyone's.
QByteArray requestScript(const QByteArray &verb, const QByteArray &head, const QByteArray &outcomes)
{
    QByteArray script = QByteArrayLiteral(R"SH(#!/bin/sh
@HEAD@dir=$(dirname "$0")
id="r$$-$(date +%s)"
umask 022
printf '%s' "$*" > "$dir/.$id.tmp" || exit 1
mv -f "$dir/.$id.tmp" "$dir/$id.@VERB@" || exit 1
waited=0
while [ ! -f "$dir/$id.done" ]; do
  if [ "$waited" -ge 3000 ]; then
    rm -f "$dir/$id.@VERB@"
    echo "isolation @VERB@: no answer from the Connected Server" >&2
    exit 2
  fi
  sleep 0.2 2>/dev/null || sleep 1
  waited=$((waited + 1))
done
answer=$(cat "$dir/$id.done")
rm -f "$dir/$id.done"
echo "$answer"
case "$answer" in
@OUTCOMES@  refused*) exit 4 ;;
  *) exit 1 ;;
esac
)SH");
    script.replace("@HEAD@", head);
    script.replace("@OUTCOMES@", outcomes);
    script.replace("@VERB@", verb);
    return script;
}

} // namespace

QByteArray SandboxControl::saveScript()
{
    return requestScript("save",
        "# Asks the Isolation Connected Server to save everything this session changed (written by the\n"
        "# engine; docs/runtime.md, \"Saves asked from the sandbox\").\n"
        "#   /run/isolation/save [MESSAGE...]\n"
        "# Exit status: 0 saved, or nothing to save; 3 another session saved first (the work stays on this\n"
        "# session's branch: sync, then save again); 4 refused; 1 failed; 2 no answer within 10 minutes.\n",
        "  saved*|unchanged*) exit 0 ;;\n  moved-on*) exit 3 ;;\n");
}

QByteArray SandboxControl::syncScript()
{
    return requestScript("sync",
        "# Asks the Isolation Connected Server to bring what other sessions saved into this session (written\n"
        "# by the engine; docs/runtime.md, \"Saves asked from the sandbox\").\n"
        "#   /run/isolation/sync [--resolve]\n"
        "# Exit status: 0 synced; 5 conflicts (without --resolve nothing changed; with it the markers are\n"
        "# in the files: edit them, then save); 4 refused; 1 failed; 2 no answer within 10 minutes.\n",
        "  synced*) exit 0 ;;\n  conflict*) exit 5 ;;\n");
}

bool SandboxControl::start(QString *why)
{
    const auto fail = [why](const QString &text) {
        if (why)
            *why = text;
        return false;
    };
    if (m_dirFd >= 0)
        return true;
    if (!QDir().mkpath(m_dir))
        return fail(tr("cannot create %1").arg(m_dir));
    ::chmod(QFile::encodeName(m_dir).constData(), 0755);
    // The directory itself is the engine's (the sandbox sees it as a mount point, which it cannot
    // replace); what is inside is the sandbox's.
    m_dirFd = ::open(QFile::encodeName(m_dir).constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (m_dirFd < 0)
        return fail(tr("cannot open %1: %2").arg(m_dir, QString::fromLocal8Bit(strerror(errno))));
    if (!writeFile(QByteArrayLiteral("save"), saveScript(), 0755) || !writeFile(QByteArrayLiteral("sync"), syncScript(), 0755))
        return fail(tr("cannot write the save and sync scripts into %1").arg(m_dir));
    m_watcher = new QFileSystemWatcher(this);
    if (!m_watcher->addPath(m_dir))
        return fail(tr("cannot watch %1").arg(m_dir));
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] {
        if (m_scanQueued)
            return;
        m_scanQueued = true;
        QTimer::singleShot(0, this, [this] {
            m_scanQueued = false;
            scan();
        });
    });
    scan(); // what was asked while no engine watched (before a restart) is taken now
    return true;
}

bool SandboxControl::writeFile(const QByteArray &name, const QByteArray &content, int mode)
{
    // Written beside and renamed over: a link the sandbox put at `name` is replaced, never followed.
    const QByteArray temp = "." + name + ".engine-tmp";
    ::unlinkat(m_dirFd, temp.constData(), 0);
    const int fd = ::openat(m_dirFd, temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    const bool written = writeAll(fd, content) && ::fchmod(fd, mode_t(mode)) == 0;
    ::close(fd);
    if (!written || ::renameat(m_dirFd, temp.constData(), m_dirFd, name.constData()) != 0) {
        ::unlinkat(m_dirFd, temp.constData(), 0);
        return false;
    }
    return true;
}

void SandboxControl::answer(const QString &id, Outcome outcome, const QString &text)
{
    m_taken.remove(id);
    if (m_dirFd < 0)
        return;
    const QString line = oneLine(outcomeWord(outcome) + QLatin1Char(' ') + text, 2000) + QLatin1Char('\n');
    if (!writeFile(id.toLatin1() + ".done", line.toUtf8(), 0644))
        qCWarning(lcSandboxControl) << "cannot answer" << id << "in" << m_dir;
}

void SandboxControl::scan()
{
    if (m_dirFd < 0)
        return;
    const int listFd = ::openat(m_dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (listFd < 0)
        return;
    DIR *dir = ::fdopendir(listFd);
    if (!dir) {
        ::close(listFd);
        return;
    }
    QStringList requests;
    int seen = 0;
    while (const dirent *entry = ::readdir(dir)) {
        if (++seen > kMaxEntriesPerScan)
            break;
        const QString name = QString::fromLatin1(entry->d_name);
        if (requestName().match(name).hasMatch())
            requests.append(name);
    }
    ::closedir(dir);
    requests.sort();

    for (const QString &name : std::as_const(requests)) {
        const QRegularExpressionMatch match = requestName().match(name);
        const QString id = match.captured(1);
        const bool sync = match.captured(2) == QLatin1String("sync");
        if (m_taken.contains(id))
            continue;
        const QByteArray file = name.toLatin1();
        // A FIFO would block a plain open, a link could point anywhere on the host: neither is read.
        const int fd = ::openat(m_dirFd, file.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        ::unlinkat(m_dirFd, file.constData(), 0); // taken: a later scan does not see it again
        if (fd < 0) {
            answer(id, Outcome::Refused, tr("the request is not a regular file"));
            continue;
        }
        struct stat st {};
        QByteArray content;
        bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        if (regular) {
            content.resize(kMaxRequestBytes + 1);
            qsizetype got = 0;
            while (got < content.size()) {
                const ssize_t n = ::read(fd, content.data() + got, size_t(content.size() - got));
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0)
                    break;
                got += n;
            }
            content.truncate(got);
        }
        ::close(fd);
        if (!regular) {
            answer(id, Outcome::Refused, tr("the request is not a regular file"));
            continue;
        }
        if (content.size() > kMaxRequestBytes) {
            answer(id, Outcome::Refused, tr("the request is larger than %1 bytes").arg(kMaxRequestBytes));
            continue;
        }
        if (m_taken.size() >= kMaxOutstanding) {
            answer(id, Outcome::Refused, tr("too many requests at once; ask again later"));
            continue;
        }
        if (sync) {
            const QByteArray how = content.trimmed();
            if (!how.isEmpty() && how != "--resolve") {
                answer(id, Outcome::Refused, tr("sync takes --resolve or nothing"));
                continue;
            }
            m_taken.insert(id);
            Q_EMIT syncRequested(id, how == "--resolve");
            continue;
        }
        m_taken.insert(id);
        Q_EMIT saveRequested(id, oneLine(QString::fromUtf8(content), kMaxMessageChars));
    }
}

} // namespace isolation
