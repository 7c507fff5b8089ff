// Errors that say what happened (issue 27), against a real engine process and the real hub: a
// caller's mistake is a 4xx with a documented code and the CLI's usage exit code, never a 500;
// a save through a symbolic link out of the worktree is refused with the reason; a message over
// 64 KiB and a body over 1 MiB are refused before they cost memory; a session whose worktree was
// deleted says so for every verb and is restored from its branch; a full disk (a tmpfs made by
// the test) is said as "No space left on device", with nothing lost once space is back; the
// engine's own lock file on a full disk says the same; a read-only bind mount is said as such, and
// so are files the engine's user may not write (the engine run without CAP_DAC_OVERRIDE).
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include "localapi/localapiclient.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace isolation;
using namespace isolation::test;

namespace {

constexpr int kUsage = 2;
constexpr int kNotNow = 10;
constexpr int kStorage = 11;

struct Sess
{
    QString id;
    QString work;

    bool write(const QString &path, const QByteArray &bytes) const { return GitCli::writeFile(work + '/' + path, bytes); }
    QByteArray read(const QString &path) const { return GitCli::readFile(work + '/' + path); }
};

Sess sessionOf(const QJsonObject &o)
{
    return {o.value(QStringLiteral("id")).toString(), o.value(QStringLiteral("worktree")).toString()};
}

bool run(const QString &program, const QStringList &args, QByteArray *err = nullptr)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(60000))
        return false;
    if (err)
        *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// The VmRSS of a process, in KiB (0 when it cannot be read).
qint64 rssKiB(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return 0;
}

} // namespace

class tst_SessionErrors final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void callersMistakesAreRefusedAsSuch();
    void aSelectionThroughASymlinkIsRefused();
    void largeRequestsCostNothing();
    void aVanishedWorktreeIsSaidAndRestored();
    void anInterruptedSaveWaitsForItsWorktree();
    void aFullDiskIsSaidAndLosesNothing();
    void theLockFileOnAFullDisk();
    void aReadOnlyDiskIsSaid();
    void aFullCacheIsSaid();
    void aDeniedDirectoryIsSaid();

private:
    Sess newSession(const QString &workspace);
    Result<HttpResponse, LocalApiError> request(const QByteArray &method, const QString &path, const QByteArray &body,
        const QByteArray &type = "application/json") const
    {
        return LocalApiClient(m_fx->home(0) + QStringLiteral("/run/engine.sock")).request(method, path, body, type);
    }
    static QString codeOf(const HttpResponse &r)
    {
        return QJsonDocument::fromJson(r.body).object().value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
    }
    qint64 enginePid() const;
    // A tmpfs of `mebibytes` mounted at `dir` (root only); unmounted by cleanupTestCase.
    bool mountTmpfs(const QString &dir, int mebibytes);
    // `dir` of engine 0 moved onto a tmpfs of `mebibytes`, its contents copied over, the engine
    // stopped meanwhile and started again.
    bool moveOntoTmpfs(const QString &dir, int mebibytes);

    std::unique_ptr<SessionFixture> m_fx;
    QStringList m_mounts;
};

void tst_SessionErrors::initTestCase()
{
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(1));
    QVERIFY(m_fx->startEngine(0));
}

void tst_SessionErrors::cleanupTestCase()
{
    if (m_fx)
        m_fx->stopEngine(0);
    for (const QString &m : std::as_const(m_mounts))
        run(QStringLiteral("umount"), {QStringLiteral("-l"), m});
    m_fx.reset();
}

Sess tst_SessionErrors::newSession(const QString &workspace)
{
    if (m_fx->createWorkspace(workspace).isEmpty())
        return {};
    return sessionOf(m_fx->newSession(0, workspace));
}

qint64 tst_SessionErrors::enginePid() const
{
    QFile lock(m_fx->home(0) + QStringLiteral("/data/engine.lock"));
    return lock.open(QIODevice::ReadOnly) ? lock.readLine().trimmed().toLongLong() : 0;
}

bool tst_SessionErrors::mountTmpfs(const QString &dir, int mebibytes)
{
    QByteArray err;
    if (!QDir().mkpath(dir)
        || !run(QStringLiteral("mount"),
            {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                QStringLiteral("size=%1m,mode=0700").arg(mebibytes), QStringLiteral("tmpfs"), dir},
            &err)) {
        qWarning() << "mount failed:" << err;
        return false;
    }
    m_mounts.prepend(dir);
    return true;
}

bool tst_SessionErrors::moveOntoTmpfs(const QString &dir, int mebibytes)
{
    const QString aside = dir + QStringLiteral(".aside");
    return m_fx->stopEngine(0) == 0 && QDir().rename(dir, aside) && mountTmpfs(dir, mebibytes)
        && run(QStringLiteral("cp"), {QStringLiteral("-a"), aside + QStringLiteral("/."), dir}) && m_fx->startEngine(0);
}

// Reproductions 1, 4 and 5 of the issue: each is the caller's mistake, answered 4xx with a code
// from docs/cli.md's list, and the CLI exits 2 (usage).
void tst_SessionErrors::callersMistakesAreRefusedAsSuch()
{
    const Sess s = newSession(QStringLiteral("mistaken"));
    QVERIFY(!s.id.isEmpty());
    const QString save = QStringLiteral("/v1/sessions/%1/save").arg(s.id);

    auto r = request("POST", save, R"({"files":["../outside.txt"]})");
    QVERIFY(r);
    QCOMPARE(r.value().status, 400);
    QCOMPARE(codeOf(r.value()), QStringLiteral("bad_request"));
    QVERIFY2(r.value().body.contains("not inside the session's worktree"), r.value().body.constData());

    r = request("POST", save, R"({"message":42})");
    QCOMPARE(r.value().status, 400);
    QVERIFY2(r.value().body.contains("message must be a string"), r.value().body.constData());

    r = request("POST", save, R"({"files":[""]})");
    QCOMPARE(r.value().status, 400);

    r = request("POST", save, "save everything please", "text/plain");
    QCOMPARE(r.value().status, 400);
    QVERIFY2(r.value().body.contains("must be JSON") && r.value().body.contains("text/plain"), r.value().body.constData());

    r = request("POST", save, "{\"message\": ");
    QCOMPARE(r.value().status, 400);
    QVERIFY2(r.value().body.contains("not valid JSON"), r.value().body.constData());

    r = request("POST", QStringLiteral("/v1/sessions/%1/sync").arg(s.id), R"({"resolve":"yes"})");
    QCOMPARE(r.value().status, 400);

    // The CLI refuses the same before asking.
    CliRun c = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--file"), QString()});
    QCOMPARE(c.exitCode, kUsage);
    QVERIFY2(c.err.contains("--file needs a path"), c.err.constData());
    c = m_fx->cli(0, {QStringLiteral("save"), QStringLiteral("x/../../etc")});
    QCOMPARE(c.exitCode, kUsage);
    QVERIFY2(c.err.contains("is not a session id"), c.err.constData());
    c = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--file"), QStringLiteral("../outside.txt")});
    QCOMPARE(c.exitCode, kUsage);
    // Nothing was saved by any of it.
    QCOMPARE(m_fx->cli(0, {QStringLiteral("changes"), s.id, QStringLiteral("--json")}).json().value(QStringLiteral("ahead")).toInt(), 0);
}

// Reproduction 4: a file asked for through a symbolic link out of the worktree is refused with the
// reason, not left out without a word; the link itself can be saved.
void tst_SessionErrors::aSelectionThroughASymlinkIsRefused()
{
    const Sess s = newSession(QStringLiteral("linked"));
    QVERIFY(!s.id.isEmpty());
    QTemporaryDir outside;
    QVERIFY(GitCli::writeFile(outside.filePath(QStringLiteral("secret.txt")), "not for the hub\n"));
    QVERIFY(QFile::link(outside.path(), s.work + QStringLiteral("/linkdir")));

    const CliRun c = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--file"), QStringLiteral("linkdir/secret.txt")});
    QCOMPARE(c.exitCode, kUsage);
    QVERIFY2(c.err.contains("linkdir, a symbolic link"), c.err.constData());
    auto r = request("POST", QStringLiteral("/v1/sessions/%1/save").arg(s.id), R"({"files":["linkdir/secret.txt"]})");
    QCOMPARE(r.value().status, 422);
    QCOMPARE(codeOf(r.value()), QStringLiteral("invalid"));

    const CliRun link = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--file"), QStringLiteral("linkdir")});
    QVERIFY2(link.exitCode == 0, qPrintable(link.describe()));
    const QJsonArray pending = m_fx->cli(0, {QStringLiteral("changes"), s.id, QStringLiteral("--json")}).json().value(QStringLiteral("files")).toArray();
    QVERIFY2(pending.isEmpty(), QJsonDocument(pending).toJson().constData()); // the link went, as a link
}

// Reproduction 6: a 10 MB message raised the engine's memory for good. A message over 64 KiB is
// refused by the engine (422) and the CLI (usage); a body over 1 MiB is refused (413) unread.
void tst_SessionErrors::largeRequestsCostNothing()
{
    const Sess s = newSession(QStringLiteral("wordy"));
    QVERIFY(!s.id.isEmpty());
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
    const QString save = QStringLiteral("/v1/sessions/%1/save").arg(s.id);

    const QByteArray overLimit = QByteArray(65 * 1024, 'm');
    auto r = request("POST", save, QJsonDocument(QJsonObject {{QStringLiteral("message"), QString::fromLatin1(overLimit)}}).toJson());
    QCOMPARE(r.value().status, 422);
    QVERIFY2(r.value().body.contains("the limit is 65536 bytes"), r.value().body.constData());
    const CliRun c = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("-m"), QString::fromLatin1(overLimit)});
    QCOMPARE(c.exitCode, kUsage);

    const qint64 pid = enginePid();
    QVERIFY(pid > 0);
    const qint64 before = rssKiB(pid);
    const QByteArray huge = "{\"message\":\"" + QByteArray(10 * 1024 * 1024, 'x') + "\"}";
    for (int i = 0; i < 3; ++i) {
        r = request("POST", save, huge);
        QVERIFY(r);
        QCOMPARE(r.value().status, 413);
        QCOMPARE(codeOf(r.value()), QStringLiteral("too_large"));
    }
    const qint64 after = rssKiB(pid);
    QVERIFY2(after - before < 8 * 1024, qPrintable(QStringLiteral("RSS %1 KiB → %2 KiB").arg(before).arg(after)));
    // Nothing was saved; the save at the limit goes through.
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("-m"), QString(64 * 1024, u'w')});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
}

// Reproduction 3: `rm -rf` of a worktree. Every verb says so and what can be done (exit 10);
// `restore` checks the session branch out again, and the session works on.
void tst_SessionErrors::aVanishedWorktreeIsSaidAndRestored()
{
    const Sess s = newSession(QStringLiteral("vanishing"));
    QVERIFY(!s.id.isEmpty());
    QVERIFY(s.write(QStringLiteral("kept.txt"), "kept\n"));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("save"), s.id}).exitCode, 0);
    QVERIFY(QDir(s.work).removeRecursively());

    for (const QString &verb : {QStringLiteral("save"), QStringLiteral("sync"), QStringLiteral("changes")}) {
        const CliRun c = m_fx->cli(0, {verb, s.id});
        QVERIFY2(c.exitCode == kNotNow, qPrintable(verb + QStringLiteral(": ") + c.describe()));
        QVERIFY2(c.err.contains("is gone from the disk") && c.err.contains(QByteArray("isolation-server restore " + s.id.toUtf8()))
                && c.err.contains(QByteArray("finish " + s.id.toUtf8() + " --discard")),
            c.err.constData());
    }
    auto r = request("GET", QStringLiteral("/v1/sessions/%1/diff?path=kept.txt").arg(s.id), {});
    QCOMPARE(r.value().status, 409);
    QCOMPARE(codeOf(r.value()), QStringLiteral("worktree_missing"));

    const CliRun restored = m_fx->cli(0, {QStringLiteral("restore"), s.id});
    QVERIFY2(restored.exitCode == 0, qPrintable(restored.describe()));
    QCOMPARE(s.read(QStringLiteral("kept.txt")), QByteArray("kept\n"));
    const QJsonObject changes = m_fx->cli(0, {QStringLiteral("changes"), s.id, QStringLiteral("--json")}).json();
    QVERIFY2(changes.value(QStringLiteral("files")).toArray().isEmpty(), QJsonDocument(changes).toJson().constData());
    // Restoring what is there is refused; the session saves again.
    QCOMPARE(m_fx->cli(0, {QStringLiteral("restore"), s.id}).exitCode, kUsage);
    QVERIFY(s.write(QStringLiteral("after.txt"), "after\n"));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("save"), s.id}).exitCode, 0);
}

// A save the engine was killed in (after its commit), then the worktree deleted: the next start
// says why the save waits (it said libgit2's "failed to open directory"), and `restore` runs it
// again, so the hub gets what the save was for.
void tst_SessionErrors::anInterruptedSaveWaitsForItsWorktree()
{
    const QString workspace = QStringLiteral("halted");
    const QString workspaceId = m_fx->createWorkspace(workspace);
    QVERIFY(!workspaceId.isEmpty());
    const Sess s = sessionOf(m_fx->newSession(0, workspace));
    QVERIFY(!s.id.isEmpty());
    QVERIFY(s.write(QStringLiteral("halted.txt"), "halted\n"));
    QCOMPARE(m_fx->stopEngine(0), 0);
    QProcessEnvironment crash;
    crash.insert(QStringLiteral("ISOLATION_TEST_CRASH_AT"), QStringLiteral("after-commit"));
    QVERIFY(m_fx->startEngine(0, crash));
    const CliRun saving = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("-m"), QStringLiteral("halted")});
    QVERIFY2(saving.exitCode == 3, qPrintable(saving.describe()));
    QVERIFY(m_fx->waitKilled(0));
    const QByteArray before = m_fx->hubManifest(workspaceId);
    QVERIFY(QDir(s.work).removeRecursively());

    const qsizetype logStart = m_fx->engineLog(0).size();
    QVERIFY(m_fx->startEngine(0));
    const auto logged = [&](const QString &text) {
        QDeadlineTimer deadline(30000);
        while (!deadline.hasExpired() && !m_fx->engineLog(0).mid(logStart).contains(text))
            QTest::qWait(100);
        return m_fx->engineLog(0).mid(logStart).contains(text);
    };
    // What the engine said about this session and its saves, for a failure's message.
    const auto about = [&] {
        QStringList lines;
        for (const QString &line : m_fx->engineLog(0).mid(logStart).split(u'\n')) {
            if (line.contains(s.id) || line.contains(QLatin1String("save")))
                lines << line;
        }
        return lines.join(u'\n').right(6000);
    };
    QVERIFY2(logged(QStringLiteral("the save the engine was stopped in waits")), qPrintable(about()));
    QString log = m_fx->engineLog(0).mid(logStart);
    QVERIFY2(log.contains(QStringLiteral("isolation-server restore ") + s.id), qPrintable(log.right(4000)));
    QVERIFY2(!log.contains(QStringLiteral("failed to open directory")), qPrintable(log.right(4000)));
    // After the restart too, every verb says the worktree is gone (opening the session once made
    // it again, empty, and a save published every file as deleted).
    const CliRun save = m_fx->cli(0, {QStringLiteral("save"), s.id});
    QVERIFY2(save.exitCode == kNotNow && save.err.contains("is gone from the disk"), qPrintable(save.describe()));
    QVERIFY(!QFileInfo::exists(s.work));
    QCOMPARE(m_fx->hubManifest(workspaceId), before); // nothing published meanwhile

    const CliRun restored = m_fx->cli(0, {QStringLiteral("restore"), s.id});
    QVERIFY2(restored.exitCode == 0, qPrintable(restored.describe()));
    QCOMPARE(s.read(QStringLiteral("halted.txt")), QByteArray("halted\n")); // the commit made before the kill
    QVERIFY2(logged(QStringLiteral("resumed save done")), qPrintable(about()));
    QVERIFY(m_fx->hubManifest(workspaceId) != before);
    const CliRun again = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--json")});
    QVERIFY2(again.exitCode == 0, qPrintable(again.describe()));
    QCOMPARE(again.json().value(QStringLiteral("outcome")).toString(), QStringLiteral("nothing_to_save"));
}

// Reproduction 2: a session's repository on a disk with 3 MB free and 10 MB to save. The save
// says "No space left on device" (exit 11, code no_space) at once, without retrying as if files
// changed; once there is space again the same save goes through, nothing lost.
void tst_SessionErrors::aFullDiskIsSaidAndLosesNothing()
{
    if (::geteuid() != 0)
        QSKIP("mounting a tmpfs needs root (CI runs as root)");
    const Sess s = newSession(QStringLiteral("crowded"));
    QVERIFY(!s.id.isEmpty());
    // The session's directory (its repository and worktree) moved onto a 40 MiB tmpfs.
    const QString dir = QFileInfo(s.work).path();
    QVERIFY(moveOntoTmpfs(dir, 40));

    QRandomGenerator random(27);
    QByteArray chunk(50 * 1024, Qt::Uninitialized);
    QMap<QString, QByteArray> files;
    for (int i = 0; i < 200; ++i) {
        random.fillRange(reinterpret_cast<quint32 *>(chunk.data()), chunk.size() / 4);
        files.insert(QStringLiteral("f/%1.bin").arg(i, 3, 10, QLatin1Char('0')), chunk);
        QVERIFY(s.write(QStringLiteral("f/%1.bin").arg(i, 3, 10, QLatin1Char('0')), chunk));
    }
    // Leave 3 MiB free.
    const QString ballast = dir + QStringLiteral("/ballast");
    QVERIFY(run(QStringLiteral("sh"), {QStringLiteral("-c"),
        QStringLiteral("dd if=/dev/zero of=%1 bs=1M count=$(( $(df -m --output=avail %2 | tail -1) - 3 ))")
            .arg(ballast, dir)}));

    const CliRun full = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--json")});
    QVERIFY2(full.exitCode == kStorage, qPrintable(full.describe()));
    const QJsonObject error = full.json().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("no_space"));
    QVERIFY2(error.value(QStringLiteral("message")).toString().contains(QLatin1String("No space left on device"))
            && error.value(QStringLiteral("message")).toString().contains(dir),
        qPrintable(full.describe()));
    QVERIFY2(!m_fx->engineLog(0).contains(QLatin1String("a file changed while it was read")), "retried as a changing file");
    qInfo().noquote() << "a save on a full disk said:" << error.value(QStringLiteral("message")).toString();

    QVERIFY(QFile::remove(ballast));
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), s.id});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    // Everything is on the hub: a new session has every byte.
    const Sess other = sessionOf(m_fx->newSession(0, QStringLiteral("crowded")));
    QVERIFY(!other.id.isEmpty());
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        QVERIFY2(other.read(it.key()) == it.value(), qPrintable(it.key()));
}

// Reproduction 2, at start: `up` with its state on a full disk says so, not just "cannot take the
// lock file".
void tst_SessionErrors::theLockFileOnAFullDisk()
{
    if (::geteuid() != 0)
        QSKIP("mounting a tmpfs needs root (CI runs as root)");
    const QString home = m_fx->dir() + QStringLiteral("/fullhome");
    QVERIFY(mountTmpfs(home, 1));
    QVERIFY(QDir().mkpath(home + QStringLiteral("/data")) && QDir().mkpath(home + QStringLiteral("/run")));
    QVERIFY(run(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("dd if=/dev/zero of=%1/fill bs=64k 2>/dev/null; true").arg(home)}));
    QProcess up;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    up.setProcessEnvironment(env);
    up.start(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file")});
    QVERIFY(up.waitForFinished(60000));
    const QByteArray said = up.readAllStandardError() + up.readAllStandardOutput();
    QVERIFY2(up.exitCode() != 0, said.constData());
    QVERIFY2(said.contains("No space left on device"), said.constData());
}

// A session's directory bind-mounted read-only (as a backup tool or a full-disk remount leaves
// it): the save says so (exit 11, read_only), and saves again once the disk is writable.
void tst_SessionErrors::aReadOnlyDiskIsSaid()
{
    if (::geteuid() != 0)
        QSKIP("bind mounts need root (CI runs as root)");
    const Sess s = newSession(QStringLiteral("frozen"));
    QVERIFY(!s.id.isEmpty());
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));
    const QString dir = QFileInfo(s.work).path();
    QVERIFY(run(QStringLiteral("mount"), {QStringLiteral("--bind"), dir, dir}));
    m_mounts.prepend(dir);
    QVERIFY(run(QStringLiteral("mount"), {QStringLiteral("-o"), QStringLiteral("remount,ro,bind"), dir}));

    const CliRun frozen = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--json")});
    QVERIFY2(frozen.exitCode == kStorage, qPrintable(frozen.describe()));
    const QJsonObject error = frozen.json().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("read_only"));
    qInfo().noquote() << "a save on a read-only disk said:" << error.value(QStringLiteral("message")).toString();

    QVERIFY(run(QStringLiteral("umount"), {dir}));
    m_mounts.removeOne(dir);
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), s.id});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
}

// Reproduction 2 with 15 MB free: the engine's cache (where a save's bundle and its sealed copy
// are written before the upload) on a 16 MiB tmpfs, and 10 MB to save: the two copies do not fit.
// Said as "No space left on device" with the cache's path (it was "cannot write encrypted object:
// Unknown error"); with room again, the same save goes through.
void tst_SessionErrors::aFullCacheIsSaid()
{
    if (::geteuid() != 0)
        QSKIP("mounting a tmpfs needs root (CI runs as root)");
    const QString cache = m_fx->home(0) + QStringLiteral("/cache");
    QVERIFY(moveOntoTmpfs(cache, 16));

    const Sess s = newSession(QStringLiteral("bulky"));
    QVERIFY(!s.id.isEmpty());
    QRandomGenerator random(15);
    QByteArray chunk(1024 * 1024, Qt::Uninitialized);
    for (int i = 0; i < 10; ++i) {
        random.fillRange(reinterpret_cast<quint32 *>(chunk.data()), chunk.size() / 4);
        QVERIFY(s.write(QStringLiteral("big%1.bin").arg(i), chunk));
    }
    const CliRun full = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--json")});
    QVERIFY2(full.exitCode == kStorage, qPrintable(full.describe()));
    const QJsonObject error = full.json().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("no_space"));
    const QString said = error.value(QStringLiteral("message")).toString();
    QVERIFY2(said.contains(QLatin1String("No space left on device")) && said.contains(cache), qPrintable(said));
    qInfo().noquote() << "a save with a full cache said:" << said;

    QVERIFY(run(QStringLiteral("mount"), {QStringLiteral("-o"), QStringLiteral("remount,size=128m"), cache}));
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), s.id});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
}

// A session's files the engine's user may not write (as a `sudo` run or a restore from a backup
// leaves them owned or moded otherwise): the save says "Permission denied" with the path (exit
// 11, permission_denied), and saves once the permissions are fixed. The test runs as root, whom
// file modes do not stop, so the engine runs without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
// (setpriv), as an ordinary user's engine is.
void tst_SessionErrors::aDeniedDirectoryIsSaid()
{
    if (::geteuid() != 0)
        QSKIP("dropping capabilities to honour file modes is for root (CI runs as root)");
    const QString setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
    QVERIFY2(!setpriv.isEmpty(), "setpriv (util-linux) is not installed");
    const Sess s = newSession(QStringLiteral("guarded"));
    QVERIFY(!s.id.isEmpty());
    QVERIFY(s.write(QStringLiteral("a.txt"), "a\n"));

    const QString caps = QStringLiteral("-dac_override,-dac_read_search");
    QCOMPARE(m_fx->stopEngine(0), 0);
    m_fx->setEngineWrapper({setpriv, QStringLiteral("--inh-caps=") + caps, QStringLiteral("--bounding-set=") + caps, QStringLiteral("--")});
    auto plain = qScopeGuard([&] { m_fx->setEngineWrapper({}); });
    QVERIFY(m_fx->startEngine(0));
    // The engine really lacks the capability (bit 1 of CapEff), or this test proves nothing.
    QFile status(QStringLiteral("/proc/%1/status").arg(enginePid()));
    QVERIFY(status.open(QIODevice::ReadOnly));
    const QByteArray statusText = status.readAll();
    const qsizetype at = statusText.indexOf("CapEff:");
    QVERIFY(at >= 0);
    const quint64 effective = statusText.mid(at + 7, statusText.indexOf('\n', at) - at - 7).trimmed().toULongLong(nullptr, 16);
    QVERIFY2((effective & (1u << 1)) == 0, statusText.constData());

    const QString dir = QFileInfo(s.work).path();
    QVERIFY(run(QStringLiteral("chmod"), {QStringLiteral("-R"), QStringLiteral("u-w"), dir}));
    const CliRun denied = m_fx->cli(0, {QStringLiteral("save"), s.id, QStringLiteral("--json")});
    QVERIFY(run(QStringLiteral("chmod"), {QStringLiteral("-R"), QStringLiteral("u+w"), dir}));
    QVERIFY2(denied.exitCode == kStorage, qPrintable(denied.describe()));
    const QJsonObject error = denied.json().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("permission_denied"));
    const QString said = error.value(QStringLiteral("message")).toString();
    QVERIFY2(said.contains(QLatin1String("Permission denied")) && said.contains(dir), qPrintable(said));
    qInfo().noquote() << "a save into a directory it may not write said:" << said;

    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), s.id});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    QCOMPARE(m_fx->stopEngine(0), 0);
    plain.dismiss();
    m_fx->setEngineWrapper({});
    QVERIFY(m_fx->startEngine(0));
}

QTEST_GUILESS_MAIN(tst_SessionErrors)
#include "tst_sessionerrors.moc"
