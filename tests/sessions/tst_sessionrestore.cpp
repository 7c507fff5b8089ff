// A cold restore end to end (issue 25, point 3): a real engine with an empty warm cache downloads
// the segments, checks and reads each into git as it arrives, and writes the files from several
// threads. The files are the saved ones byte for byte, with their executable bits and symbolic
// links, and `git status` is clean; a corrupt or truncated segment stops `session new` with the
// reason and leaves no session, no spool and no pack behind; an engine killed in the middle of the
// download or of the checkout finishes the session by itself when it starts again.
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QRandomGenerator>
#include <QTest>

using namespace isolation::test;

namespace {

QStringList filesIn(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        out.append(it.next());
    return out;
}

} // namespace

class tst_SessionRestore final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void coldRestoreIsTheSavedTree();
    void aBadSegmentLeavesNothing_data();
    void aBadSegmentLeavesNothing();
    void killedMidRestoreFinishesOnRestart_data();
    void killedMidRestoreFinishesOnRestart();
    void aLongChainRollsUpWhatChanged();

private:
    // Engine 1's cache emptied: the next `session new` there is a cold restore.
    void coldCache();
    QStringList sessionIds(int engine) const;
    // The restored worktree is the saved one, and its repository is clean; nothing left on the way.
    void verifyRestored(const QString &work);
    QString data(int engine) const { return m_fx.home(engine) + QStringLiteral("/data"); }
    QString cacheDir(int engine) const { return m_fx.home(engine) + QStringLiteral("/cache"); }

    SessionFixture m_fx;
    QString m_workspaceId;
    QString m_saved; // engine 0's worktree
    QString m_savedId; // its session
};

void tst_SessionRestore::initTestCase()
{
    QVERIFY(m_fx.start(2));
    // Engine 1 restores; no spare session there (one built in the background would make the
    // next start warm).
    QVERIFY(GitCli::writeFile(m_fx.home(1) + QStringLiteral("/config/settings.ini"), "[cache]\nspareSessions=false\n"));
    QVERIFY(m_fx.startEngine(0));
    QVERIFY(m_fx.startEngine(1));
    m_workspaceId = m_fx.createWorkspace(QStringLiteral("restore"));
    QVERIFY(!m_workspaceId.isEmpty());
    const QJsonObject a = m_fx.newSession(0, QStringLiteral("restore"));
    const QString id = a.value(QStringLiteral("id")).toString();
    m_savedId = id;
    m_saved = a.value(QStringLiteral("worktree")).toString();
    QVERIFY(!id.isEmpty());
    // Deep directories of small files, a few large incompressible ones (a download in several
    // pieces), an executable, links, an empty file, line endings set by attributes.
    for (int i = 0; i < 600; ++i)
        QVERIFY(GitCli::writeFile(
            m_saved + QStringLiteral("/src/m%1/d%2/e%3/f%4.c").arg(i % 4).arg(i % 6).arg(i % 9).arg(i),
            QByteArray("int f") + QByteArray::number(i) + QByteArray("(void) { return ") + QByteArray::number(i * i)
                + ";}\n"));
    for (int i = 0; i < 3; ++i) {
        QByteArray blob(1024 * 1024, Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(blob.data()), blob.size() / 4);
        QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/assets/blob%1.bin").arg(i), blob));
    }
    QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/.gitattributes"), "*.bat text eol=crlf\n"));
    // Written as a checkout writes it (the repository keeps "\n").
    QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/tools/build.bat"), "@echo off\r\nexit 0\r\n"));
    QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/tools/run.sh"), "#!/bin/sh\nexit 0\n"));
    QVERIFY(QFile::setPermissions(m_saved + QStringLiteral("/tools/run.sh"),
        QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup));
    QVERIFY(QFile::link(QStringLiteral("run.sh"), m_saved + QStringLiteral("/tools/run")));
    QVERIFY(QFile::link(QStringLiteral("../src/m0"), m_saved + QStringLiteral("/tools/src-link")));
    QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/empty"), QByteArray()));
    QCOMPARE(m_fx.cli(0, {QStringLiteral("save"), id, QStringLiteral("-m"), QStringLiteral("tree")}).exitCode, 0);
    // A second, thin segment: the restore reads a chain.
    QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/src/m0/d0/e0/f0.c"), "int f0(void) { return -1; }\n"));
    QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/later.txt"), "later\n"));
    QCOMPARE(m_fx.cli(0, {QStringLiteral("save"), id, QStringLiteral("-m"), QStringLiteral("more")}).exitCode, 0);
    QCOMPARE(m_fx.hubSegments(m_workspaceId).size(), 2);
}

void tst_SessionRestore::cleanupTestCase()
{
    QCOMPARE(m_fx.stopEngine(0), 0);
    QCOMPARE(m_fx.stopEngine(1), 0);
}

void tst_SessionRestore::coldCache()
{
    const CliRun cleared = m_fx.cli(1, {QStringLiteral("cache"), QStringLiteral("clear")});
    QVERIFY2(cleared.exitCode == 0, qPrintable(cleared.describe()));
}

QStringList tst_SessionRestore::sessionIds(int engine) const
{
    QStringList ids;
    const QJsonObject list = m_fx.cli(engine, {QStringLiteral("sessions"), QStringLiteral("--json")}).json();
    for (const QJsonValue v : list.value(QStringLiteral("sessions")).toArray())
        ids.append(v.toObject().value(QStringLiteral("id")).toString());
    return ids;
}

void tst_SessionRestore::verifyRestored(const QString &work)
{
    const QString gitDir = QFileInfo(work).path() + QStringLiteral("/git");
    const auto restored = GitCli::snapshot(work);
    const auto saved = GitCli::snapshot(m_saved);
    QCOMPARE(restored.keys(), saved.keys());
    for (auto it = saved.cbegin(); it != saved.cend(); ++it)
        QVERIFY2(restored.value(it.key()) == it.value(), qPrintable(it.key()));
    QCOMPARE(GitCli::kinds(work), GitCli::kinds(m_saved));
    QCOMPARE(GitCli::readFile(work + QStringLiteral("/tools/build.bat")), QByteArray("@echo off\r\nexit 0\r\n"));
    QCOMPARE(GitCli::inRepo(gitDir, {QStringLiteral("status"), QStringLiteral("--porcelain")}, work).out, QByteArray());
    // The index's stat data match the files as written: clean without a refresh.
    QCOMPARE(GitCli::inRepo(gitDir, {QStringLiteral("diff-files")}, work).out, QByteArray());
    QVERIFY(GitCli::inRepo(gitDir, {QStringLiteral("fsck"), QStringLiteral("--no-progress")}).ok());
    QCOMPARE(GitCli::inRepo(gitDir, {QStringLiteral("rev-parse"), QStringLiteral("HEAD")}).out,
        GitCli::inRepo(
            QFileInfo(m_saved).path() + QStringLiteral("/git"), {QStringLiteral("rev-parse"), QStringLiteral("main")})
            .out);
    // Nothing on its way is left: no spool, no scratch pack, no half checkout.
    QCOMPARE(filesIn(cacheDir(1) + QStringLiteral("/tmp")), QStringList());
    QCOMPARE(filesIn(gitDir + QStringLiteral("/isolation/tmp")), QStringList());
}

void tst_SessionRestore::coldRestoreIsTheSavedTree()
{
    coldCache();
    const QJsonObject b = m_fx.newSession(1, QStringLiteral("restore"));
    QVERIFY(!b.isEmpty());
    QCOMPARE(b.value(QStringLiteral("lastSync")).toObject().value(QStringLiteral("segmentsDownloaded")).toInt(), 2);
    verifyRestored(b.value(QStringLiteral("worktree")).toString());
}

void tst_SessionRestore::aBadSegmentLeavesNothing_data()
{
    QTest::addColumn<QString>("tamper");
    QTest::newRow("byte flipped") << QStringLiteral("flip");
    QTest::newRow("truncated") << QStringLiteral("truncate");
}

void tst_SessionRestore::aBadSegmentLeavesNothing()
{
    QFETCH(QString, tamper);
    // The full segment (the larger one) damaged on the hub's disk, put back afterwards.
    const QString dir
        = m_fx.hub().dataDir() + QStringLiteral("/workspaces/") + m_workspaceId + QStringLiteral("/segments/");
    QString full;
    for (const QString &name : m_fx.hubSegments(m_workspaceId)) {
        if (full.isEmpty() || QFileInfo(dir + name).size() > QFileInfo(dir + full).size())
            full = name;
    }
    const QByteArray original = GitCli::readFile(dir + full);
    QVERIFY(original.size() > 1024 * 1024);
    QByteArray bad = original;
    if (tamper == QLatin1String("flip"))
        bad[bad.size() / 2] = char(bad[bad.size() / 2] ^ 0x10);
    else
        bad.truncate(bad.size() * 2 / 3);
    QVERIFY(GitCli::writeFile(dir + full, bad));
    auto putBack = qScopeGuard([&] { GitCli::writeFile(dir + full, original); });

    coldCache();
    const QStringList before = sessionIds(1);
    const QStringList dirsBefore
        = QDir(data(1) + QStringLiteral("/sessions")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    const CliRun r = m_fx.cli(1,
        {QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"), QStringLiteral("restore")});
    QVERIFY2(r.exitCode != 0, qPrintable(r.describe()));
    QVERIFY2(r.err.contains("not what the manifest names"), qPrintable(r.describe()));
    // No session, no spool, no pack of it in the cache.
    QCOMPARE(sessionIds(1), before);
    QTRY_COMPARE(QDir(data(1) + QStringLiteral("/sessions")).entryList(QDir::Dirs | QDir::NoDotAndDotDot), dirsBefore);
    QCOMPARE(filesIn(cacheDir(1) + QStringLiteral("/tmp")), QStringList());
    const QString mirror = cacheDir(1) + QStringLiteral("/workspaces/") + m_workspaceId + QStringLiteral(".git");
    QCOMPARE(filesIn(mirror + QStringLiteral("/objects/pack")), QStringList());
    QVERIFY(!QFileInfo::exists(mirror + QStringLiteral("/isolation-tmp"))
        || filesIn(mirror + QStringLiteral("/isolation-tmp")).isEmpty());

    // The segment whole again, the same start works.
    putBack.dismiss();
    QVERIFY(GitCli::writeFile(dir + full, original));
    const QJsonObject ok = m_fx.newSession(1, QStringLiteral("restore"));
    QVERIFY(!ok.isEmpty());
    verifyRestored(ok.value(QStringLiteral("worktree")).toString());
}

void tst_SessionRestore::killedMidRestoreFinishesOnRestart_data()
{
    QTest::addColumn<QString>("point");
    QTest::newRow("in the download") << QStringLiteral("mid-download");
    QTest::newRow("in the checkout") << QStringLiteral("mid-checkout");
}

void tst_SessionRestore::killedMidRestoreFinishesOnRestart()
{
    QFETCH(QString, point);
    coldCache();
    const QStringList before = sessionIds(1);
    QCOMPARE(m_fx.stopEngine(1), 0);
    QProcessEnvironment crash;
    crash.insert(QStringLiteral("ISOLATION_TEST_CRASH_AT"), point);
    QVERIFY(m_fx.startEngine(1, crash));
    const CliRun r = m_fx.cli(1,
        {QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"), QStringLiteral("restore")});
    QVERIFY2(r.exitCode != 0,
        qPrintable(r.describe()
            + QString::fromUtf8(GitCli::readFile(m_fx.home(1) + QStringLiteral("/state/engine.log")).right(6000))));
    QVERIFY(m_fx.waitKilled(1));

    // Started again, the engine finishes the session's start by itself.
    QVERIFY(m_fx.startEngine(1));
    QString id;
    QString work;
    QDeadlineTimer deadline(120000);
    while (!deadline.hasExpired() && work.isEmpty()) {
        const QJsonObject list = m_fx.cli(1, {QStringLiteral("sessions"), QStringLiteral("--json")}).json();
        for (const QJsonValue v : list.value(QStringLiteral("sessions")).toArray()) {
            const QJsonObject s = v.toObject();
            if (before.contains(s.value(QStringLiteral("id")).toString()))
                continue;
            id = s.value(QStringLiteral("id")).toString();
            if (s.value(QStringLiteral("state")).toString() == QLatin1String("ready")
                && s.value(QStringLiteral("lastSync")).toObject().value(QStringLiteral("outcome")).toString()
                    == QLatin1String("fast_forwarded"))
                work = s.value(QStringLiteral("worktree")).toString();
        }
        if (work.isEmpty())
            QTest::qWait(200);
    }
    QVERIFY2(!id.isEmpty(), "the killed start left no session");
    QVERIFY2(!work.isEmpty(), qPrintable(m_fx.engineLog(1).right(3000)));
    verifyRestored(work);
    const QString mirror = cacheDir(1) + QStringLiteral("/workspaces/") + m_workspaceId + QStringLiteral(".git");
    QVERIFY(
        GitCli::run({QStringLiteral("--git-dir=") + mirror, QStringLiteral("fsck"), QStringLiteral("--no-progress")})
            .ok());
}

// Compaction costs what the thin segments hold, not the whole tree: the save that finds the chain
// at its limit (16) rolls the thin segments up into one over the full bundle, which stays as it
// is; the chain is two segments again, what it replaced is deleted on the hub, and a warm and a
// cold restore both give the saved tree.
void tst_SessionRestore::aLongChainRollsUpWhatChanged()
{
    const QString dir
        = m_fx.hub().dataDir() + QStringLiteral("/workspaces/") + m_workspaceId + QStringLiteral("/segments/");
    QStringList segments = m_fx.hubSegments(m_workspaceId);
    QString full;
    for (const QString &name : segments) {
        if (full.isEmpty() || QFileInfo(dir + name).size() > QFileInfo(dir + full).size())
            full = name;
    }
    const qint64 fullBytes = QFileInfo(dir + full).size();
    QVERIFY(fullBytes > 3 * 1024 * 1024);
    // Warm: engine 1 has a session on the chain as it is now.
    const QJsonObject warm = m_fx.newSession(1, QStringLiteral("restore"));
    QVERIFY(!warm.isEmpty());
    QJsonObject rolled;
    for (int i = 0; segments.size() < 16 || rolled.isEmpty(); ++i) {
        QVERIFY2(i < 20, "no roll-up after 20 saves");
        QVERIFY(GitCli::writeFile(m_saved + QStringLiteral("/later.txt"), "later " + QByteArray::number(i) + "\n"));
        const CliRun save = m_fx.cli(0, {QStringLiteral("save"), m_savedId, QStringLiteral("--json")});
        QVERIFY2(save.exitCode == 0, qPrintable(save.describe()));
        const QStringList now = m_fx.hubSegments(m_workspaceId);
        if (save.json().value(QStringLiteral("compacted")).toBool()) {
            QCOMPARE(segments.size(), 16); // only at the limit
            rolled = save.json();
            segments = now;
            break;
        }
        QCOMPARE(now.size(), segments.size() + 1);
        segments = now;
    }
    // The full bundle kept, one small segment for everything after it. What it replaced is deleted
    // once the new manifest is published; the save does not wait for that housekeeping.
    QTRY_COMPARE_WITH_TIMEOUT(m_fx.hubSegments(m_workspaceId).size(), 2, 10000);
    segments = m_fx.hubSegments(m_workspaceId);
    QVERIFY(segments.contains(full));
    const qint64 rollUpBytes = rolled.value(QStringLiteral("segmentBytes")).toInteger();
    QVERIFY2(rollUpBytes > 0 && rollUpBytes < fullBytes / 20,
        qPrintable(QStringLiteral("%1 of %2").arg(rollUpBytes).arg(fullBytes)));

    // Warm: the session on engine 1 syncs to it; a new one there starts from its cache.
    const QString warmId = warm.value(QStringLiteral("id")).toString();
    const CliRun sync = m_fx.cli(1, {QStringLiteral("sync"), warmId, QStringLiteral("--json")});
    QVERIFY2(sync.exitCode == 0, qPrintable(sync.describe()));
    QCOMPARE(GitCli::snapshot(warm.value(QStringLiteral("worktree")).toString()), GitCli::snapshot(m_saved));
    const QJsonObject again = m_fx.newSession(1, QStringLiteral("restore"));
    QVERIFY(!again.isEmpty());
    verifyRestored(again.value(QStringLiteral("worktree")).toString());
    // Cold: both segments read, in order.
    coldCache();
    const QJsonObject cold = m_fx.newSession(1, QStringLiteral("restore"));
    QVERIFY(!cold.isEmpty());
    QCOMPARE(cold.value(QStringLiteral("lastSync")).toObject().value(QStringLiteral("segmentsDownloaded")).toInt(), 2);
    verifyRestored(cold.value(QStringLiteral("worktree")).toString());
}

QTEST_GUILESS_MAIN(tst_SessionRestore)
#include "tst_sessionrestore.moc"
