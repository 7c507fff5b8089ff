// Sessions end to end through the CLI, against a real engine process and the real hub: the
// conflict default leaves everything byte for byte, `sync --resolve` then `save` completes the
// merge, a selection save leaves the rest uncommitted, a save behind the hub exits 8 (moved on)
// with nothing written on the hub, and `changes --refresh` tells whether the workspace moved on.
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTest>

using namespace isolation::test;

namespace {

constexpr int kMovedOn = 8;
constexpr int kConflict = 9;

struct Sess
{
    QString id;
    QString work;
    QString gitDir;

    GitRun git(const QStringList &args) const { return GitCli::inRepo(gitDir, args, work); }
    QByteArray ref(const QString &name) const
    {
        return git({QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"), name}).out.trimmed();
    }
    bool write(const QString &path, const QByteArray &bytes) const
    {
        return GitCli::writeFile(work + '/' + path, bytes);
    }
    QByteArray read(const QString &path) const { return GitCli::readFile(work + '/' + path); }
};

Sess sessionOf(const QJsonObject &o)
{
    const QString work = o.value(QStringLiteral("worktree")).toString();
    return {o.value(QStringLiteral("id")).toString(), work, QFileInfo(work).path() + QStringLiteral("/git")};
}

} // namespace

class tst_SessionCli final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void newSessionAndSave();
    void conflictDefaultChangesNothing();
    void resolveThenSaveCompletes();
    void selectionSaveLeavesTheRest();
    void movedOnExitCode();
    void movedOnAcrossEngines();
    void changesRefresh();
    void nestedRepositoryStaysOut();

private:
    // Two sessions on a fresh workspace that both have `base` (saved by the first, synced by the second).
    bool twoSessions(const QString &name, const QMap<QString, QByteArray> &base, Sess *a, Sess *b);
    QMap<QString, QByteArray> state(const Sess &s) const;
    CliRun cli(const QStringList &args) const { return m_fx->cli(0, args); }

    std::unique_ptr<SessionFixture> m_fx;
};

void tst_SessionCli::initTestCase()
{
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(2));
    QVERIFY(m_fx->startEngine(0));
    QVERIFY(m_fx->startEngine(1));
}

void tst_SessionCli::cleanupTestCase()
{
    QCOMPARE(m_fx->stopEngine(0), 0);
    QCOMPARE(m_fx->stopEngine(1), 0);
    m_fx.reset();
}

bool tst_SessionCli::twoSessions(const QString &name, const QMap<QString, QByteArray> &base, Sess *a, Sess *b)
{
    if (m_fx->createWorkspace(name).isEmpty())
        return false;
    *a = sessionOf(m_fx->newSession(0, name));
    *b = sessionOf(m_fx->newSession(0, name));
    if (a->id.isEmpty() || b->id.isEmpty())
        return false;
    for (auto it = base.cbegin(); it != base.cend(); ++it) {
        if (!a->write(it.key(), it.value()))
            return false;
    }
    const CliRun saved = cli({QStringLiteral("save"), a->id, QStringLiteral("-m"), QStringLiteral("base")});
    const CliRun synced = cli({QStringLiteral("sync"), b->id, QStringLiteral("--json")});
    if (saved.exitCode != 0 || synced.exitCode != 0) {
        qWarning().noquote() << saved.describe() << synced.describe();
        return false;
    }
    for (auto it = base.cbegin(); it != base.cend(); ++it) {
        if (b->read(it.key()) != it.value())
            return false;
    }
    return true;
}

QMap<QString, QByteArray> tst_SessionCli::state(const Sess &s) const
{
    QMap<QString, QByteArray> all;
    const auto files = GitCli::snapshot(s.work);
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        all.insert(QStringLiteral("worktree/") + it.key(), it.value());
    all.insert(QStringLiteral("index bytes"), GitCli::readFile(s.gitDir + QStringLiteral("/index")));
    all.insert(QStringLiteral("session branch"), s.ref(QStringLiteral("refs/heads/session/") + s.id));
    all.insert(QStringLiteral("HEAD"), GitCli::readFile(s.gitDir + QStringLiteral("/HEAD")));
    all.insert(QStringLiteral("MERGE_HEAD"), QFile::exists(s.gitDir + QStringLiteral("/MERGE_HEAD")) ? "yes" : "no");
    all.insert(QStringLiteral("status"), s.git({QStringLiteral("status"), QStringLiteral("--porcelain=v2")}).out);
    return all;
}

void tst_SessionCli::newSessionAndSave()
{
    // Nothing yet: each list says so in its own words, as a whole line.
    const CliRun noWorkspaces = cli({QStringLiteral("workspaces")});
    QCOMPARE(noWorkspaces.exitCode, 0);
    QVERIFY2(noWorkspaces.out.startsWith("No workspaces yet") && noWorkspaces.out.endsWith(".\n")
            && noWorkspaces.out.count('\n') == 1,
        noWorkspaces.out.constData());
    const CliRun noSessions = cli({QStringLiteral("sessions")});
    QCOMPARE(noSessions.exitCode, 0);
    QCOMPARE(noSessions.out, QByteArray("No sessions. Start one with: isolation-server session new --workspace W\n"));
    const CliRun noSaves = cli({QStringLiteral("activity"), QStringLiteral("--kind"), QStringLiteral("save")});
    QCOMPARE(noSaves.exitCode, 0);
    QVERIFY2(
        noSaves.out.startsWith("No activity of kind save") && noSaves.out.count('\n') == 1, noSaves.out.constData());

    const QString firstId = m_fx->createWorkspace(QStringLiteral("first"));
    QVERIFY(!firstId.isEmpty());
    const CliRun workspaces = cli({QStringLiteral("workspaces"), QStringLiteral("--json")});
    QCOMPARE(workspaces.exitCode, 0);
    bool listed = false;
    for (const QJsonValue v : workspaces.json().value(QStringLiteral("workspaces")).toArray())
        listed = listed
            || (v.toObject().value(QStringLiteral("id")).toString() == firstId
                && v.toObject().value(QStringLiteral("name")).toString() == QLatin1String("first"));
    QVERIFY2(listed, workspaces.out.constData());
    const QJsonObject created = m_fx->newSession(0, QStringLiteral("first"));
    const Sess s = sessionOf(created);
    QVERIFY(s.id.startsWith('s'));
    QCOMPARE(created.value(QStringLiteral("branch")).toString(), QStringLiteral("session/") + s.id);
    QVERIFY(QFileInfo(s.work).isDir());
    QCOMPARE(s.git({QStringLiteral("symbolic-ref"), QStringLiteral("HEAD")}).out.trimmed(),
        QByteArray("refs/heads/session/") + s.id.toUtf8());

    // Plain output: the id, then the worktree.
    const CliRun plain = cli(
        {QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"), QStringLiteral("first")});
    QCOMPARE(plain.exitCode, 0);
    const QList<QByteArray> lines = plain.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 2);
    QVERIFY(QFileInfo(QString::fromUtf8(lines.at(1))).isDir());

    QVERIFY(s.write(QStringLiteral("readme.md"), "# first\n"));
    const CliRun saved
        = cli({QStringLiteral("save"), s.id, QStringLiteral("-m"), QStringLiteral("hello"), QStringLiteral("--json")});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    const QJsonObject report = saved.json();
    QCOMPARE(report.value(QStringLiteral("outcome")).toString(), QStringLiteral("published"));
    QCOMPARE(report.value(QStringLiteral("generation")).toInt(), 1);
    QVERIFY(report.value(QStringLiteral("segmentBytes")).toInt() > 0);
    // main holds a merge commit of the session's commit, as the real git sees it; the merge changed
    // no file of the session, so the session branch took it: the session is up to date with main.
    const QByteArray main = s.ref(QStringLiteral("refs/heads/main"));
    QCOMPARE(main, report.value(QStringLiteral("main")).toString().toLatin1());
    QCOMPARE(s.git({QStringLiteral("rev-parse"), QStringLiteral("main^2")}).out.trimmed(),
        report.value(QStringLiteral("commit")).toString().toLatin1());
    QCOMPARE(s.ref(QStringLiteral("refs/heads/session/") + s.id), main);
    QVERIFY(s.git({QStringLiteral("fsck"), QStringLiteral("--no-progress")}).ok());
    const CliRun changes = cli({QStringLiteral("changes"), s.id, QStringLiteral("--json")});
    QCOMPARE(changes.json().value(QStringLiteral("ahead")).toInt(), 0);
    QCOMPARE(changes.json().value(QStringLiteral("behind")).toInt(), 0);
    const CliRun plainChanges = cli({QStringLiteral("changes"), s.id});
    QCOMPARE(plainChanges.exitCode, 0);
    QCOMPARE(plainChanges.out, QByteArray("No changes in the worktree.\nUp to date with main.\n"));
    const CliRun sync = cli({QStringLiteral("sync"), s.id, QStringLiteral("--json")});
    QCOMPARE(sync.exitCode, 0);
    QCOMPARE(sync.json().value(QStringLiteral("outcome")).toString(), QStringLiteral("up_to_date"));

    const CliRun list = cli({QStringLiteral("sessions"), QStringLiteral("--json")});
    QCOMPARE(list.exitCode, 0);
    QVERIFY(list.json().value(QStringLiteral("sessions")).toArray().size() >= 2);
    // Nothing changed: nothing to save, and still exit 0.
    const CliRun again = cli({QStringLiteral("save"), s.id, QStringLiteral("--json")});
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(again.json().value(QStringLiteral("outcome")).toString(), QStringLiteral("nothing_to_save"));
    // An unknown session.
    QCOMPARE(cli({QStringLiteral("save"), QStringLiteral("s000000000000")}).exitCode, 1);
}

void tst_SessionCli::conflictDefaultChangesNothing()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("conflict-stop"), {{QStringLiteral("f.txt"), "one\ntwo\nthree\n"}}, &a, &b));
    QVERIFY(a.write(QStringLiteral("f.txt"), "one\nTWO by A\nthree\n"));
    QCOMPARE(cli({QStringLiteral("save"), a.id}).exitCode, 0);
    QVERIFY(b.write(QStringLiteral("f.txt"), "one\ntwo by B\nthree\n"));
    QVERIFY(b.write(QStringLiteral("untracked.txt"), "left alone\n"));
    QCOMPARE(cli({QStringLiteral("save"), b.id, QStringLiteral("--file"), QStringLiteral("f.txt")}).exitCode, kMovedOn);
    QVERIFY(b.write(QStringLiteral("f.txt"), "one\ntwo by B, edited after the commit\nthree\n"));

    const auto before = state(b);
    const CliRun sync = cli({QStringLiteral("sync"), b.id, QStringLiteral("--json")});
    QCOMPARE(sync.exitCode, kConflict);
    const QJsonObject error = sync.json().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("conflict"));
    const QJsonArray conflicts = error.value(QStringLiteral("conflicts")).toArray();
    QCOMPARE(conflicts.size(), 1);
    QCOMPARE(conflicts.at(0).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("f.txt"));
    QCOMPARE(conflicts.at(0).toObject().value(QStringLiteral("regions")).toInt(), 1);
    QCOMPARE(state(b), before);
    // main has A's work now and the session does not: behind, and said so.
    const CliRun behind = cli({QStringLiteral("changes"), b.id});
    QCOMPARE(behind.exitCode, 0);
    QVERIFY2(behind.out.contains("1 commit(s) ahead of main, 2 behind"), behind.out.constData());

    // The plain output lists the path with its regions.
    const CliRun plain = cli({QStringLiteral("sync"), b.id});
    QCOMPARE(plain.exitCode, kConflict);
    QVERIFY2(plain.out.contains("CONFLICT  f.txt  (1 region)"), plain.out.constData());
    QCOMPARE(state(b), before);
}

void tst_SessionCli::resolveThenSaveCompletes()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("conflict-resolve"),
        {{QStringLiteral("f.txt"), "1\n2\n3\n4\n5\n6\n7\n8\n"}, {QStringLiteral("g.txt"), "g\n"}}, &a, &b));
    QVERIFY(a.write(QStringLiteral("f.txt"), "1\nA\n3\n4\n5\n6\nA\n8\n"));
    QCOMPARE(cli({QStringLiteral("save"), a.id}).exitCode, 0);
    QVERIFY(b.write(QStringLiteral("f.txt"), "1\nB\n3\n4\n5\n6\nB\n8\n"));
    QCOMPARE(cli({QStringLiteral("save"), b.id}).exitCode, kMovedOn);
    const QByteArray bBranch = b.ref(QStringLiteral("refs/heads/session/") + b.id);

    const CliRun sync = cli({QStringLiteral("sync"), b.id, QStringLiteral("--resolve"), QStringLiteral("--json")});
    QCOMPARE(sync.exitCode, kConflict);
    QCOMPARE(sync.json().value(QStringLiteral("outcome")).toString(), QStringLiteral("conflicts_left"));
    const QJsonArray conflicts = sync.json().value(QStringLiteral("conflicts")).toArray();
    QCOMPARE(conflicts.size(), 1);
    QCOMPARE(conflicts.at(0).toObject().value(QStringLiteral("regions")).toInt(), 2);
    QVERIFY(b.read(QStringLiteral("f.txt")).contains("<<<<<<<"));
    QVERIFY(QFile::exists(b.gitDir + QStringLiteral("/MERGE_HEAD")));
    const CliRun changes = cli({QStringLiteral("changes"), b.id, QStringLiteral("--json")});
    QCOMPARE(changes.exitCode, 0);
    QVERIFY(changes.json().value(QStringLiteral("mergeInProgress")).toBool());

    QVERIFY(b.write(QStringLiteral("f.txt"), "1\nA+B\n3\n4\n5\n6\nA+B\n8\n"));
    const CliRun saved = cli(
        {QStringLiteral("save"), b.id, QStringLiteral("-m"), QStringLiteral("resolved"), QStringLiteral("--json")});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    QVERIFY(saved.json().value(QStringLiteral("completedMerge")).toBool());
    QVERIFY(!QFile::exists(b.gitDir + QStringLiteral("/MERGE_HEAD")));
    // The resolution commit has both sides as parents; main merged it and has A's work too.
    const QByteArray resolved = saved.json().value(QStringLiteral("commit")).toString().toLatin1();
    QCOMPARE(b.git({QStringLiteral("rev-parse"), QStringLiteral("main^2")}).out.trimmed(), resolved);
    QCOMPARE(b.git({QStringLiteral("rev-parse"), QString::fromLatin1(resolved + "^1")}).out.trimmed(), bBranch);
    QCOMPARE(
        b.git({QStringLiteral("show"), QStringLiteral("main:f.txt")}).out, QByteArray("1\nA+B\n3\n4\n5\n6\nA+B\n8\n"));
    QVERIFY(b.git({QStringLiteral("merge-base"), QStringLiteral("--is-ancestor"),
                      QString::fromLatin1(a.ref(QStringLiteral("refs/heads/session/") + a.id)), QStringLiteral("main")})
                .ok());

    // A takes it with a plain sync.
    QCOMPARE(cli({QStringLiteral("sync"), a.id}).exitCode, 0);
    QCOMPARE(a.read(QStringLiteral("f.txt")), QByteArray("1\nA+B\n3\n4\n5\n6\nA+B\n8\n"));
}

void tst_SessionCli::selectionSaveLeavesTheRest()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("selection"), {{QStringLiteral("kept.txt"), "kept\n"}}, &a, &b));
    QVERIFY(a.write(QStringLiteral("dir/picked.txt"), "picked\n"));
    QVERIFY(a.write(QStringLiteral("kept.txt"), "kept, changed\n"));
    QVERIFY(a.write(QStringLiteral("notes.txt"), "not saved\n"));
    // Relative to the current directory inside the worktree.
    const CliRun saved = m_fx->cli(0,
        {QStringLiteral("save"), a.id, QStringLiteral("--file"), QStringLiteral("picked.txt"),
            QStringLiteral("--json")},
        a.work + QStringLiteral("/dir"));
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    QCOMPARE(saved.json().value(QStringLiteral("files")).toArray(), QJsonArray {QStringLiteral("dir/picked.txt")});

    const QByteArray status = a.git({QStringLiteral("status"), QStringLiteral("--porcelain")}).out;
    QVERIFY2(status.contains(" M kept.txt") && status.contains("?? notes.txt") && !status.contains("picked"),
        status.constData());
    QCOMPARE(a.read(QStringLiteral("kept.txt")), QByteArray("kept, changed\n"));
    QCOMPARE(a.read(QStringLiteral("notes.txt")), QByteArray("not saved\n"));

    // The other session gets the selection only.
    QCOMPARE(cli({QStringLiteral("sync"), b.id}).exitCode, 0);
    QCOMPARE(b.read(QStringLiteral("dir/picked.txt")), QByteArray("picked\n"));
    QCOMPARE(b.read(QStringLiteral("kept.txt")), QByteArray("kept\n"));
    QVERIFY(!QFile::exists(b.work + QStringLiteral("/notes.txt")));

    // A path outside the worktree is a usage error.
    QCOMPARE(cli({QStringLiteral("save"), a.id, QStringLiteral("--file"), QStringLiteral("/etc/passwd")}).exitCode, 2);
}

void tst_SessionCli::movedOnExitCode()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("moved-on"), {{QStringLiteral("x.txt"), "x\n"}}, &a, &b));
    const QString wsId = m_fx->cli(0, {QStringLiteral("sessions"), QStringLiteral("--json")})
                             .json()
                             .value(QStringLiteral("sessions"))
                             .toArray()
                             .last()
                             .toObject()
                             .value(QStringLiteral("workspace"))
                             .toObject()
                             .value(QStringLiteral("id"))
                             .toString();
    QVERIFY(!wsId.isEmpty());
    QVERIFY(a.write(QStringLiteral("a.txt"), "a\n"));
    QCOMPARE(cli({QStringLiteral("save"), a.id}).exitCode, 0);

    QVERIFY(b.write(QStringLiteral("b.txt"), "b\n"));
    const QByteArray mainBefore = b.ref(QStringLiteral("refs/heads/main"));
    const QByteArray manifest = m_fx->hubManifest(wsId);
    const QStringList segments = m_fx->hubSegments(wsId);
    QVERIFY(!manifest.isEmpty());
    const CliRun saved = cli({QStringLiteral("save"), b.id, QStringLiteral("--json")});
    QCOMPARE(saved.exitCode, kMovedOn);
    QCOMPARE(saved.json().value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
        QStringLiteral("moved_on"));
    // Nothing written on the hub (the segment uploaded before the 412 is deleted again, right after
    // the answer); main as before; the session branch keeps the work.
    QCOMPARE(m_fx->hubManifest(wsId), manifest);
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->hubSegments(wsId), segments, 10000);
    QCOMPARE(b.ref(QStringLiteral("refs/heads/main")), mainBefore);
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("session/") + b.id + QStringLiteral(":b.txt")}).out,
        QByteArray("b\n"));
    QVERIFY(!QFile::exists(b.gitDir + QStringLiteral("/MERGE_HEAD")));

    // Sync, then save again: both reach main.
    QCOMPARE(cli({QStringLiteral("sync"), b.id}).exitCode, 0);
    QCOMPARE(cli({QStringLiteral("save"), b.id}).exitCode, 0);
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("main:a.txt")}).out, QByteArray("a\n"));
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("main:b.txt")}).out, QByteArray("b\n"));
    QVERIFY(m_fx->hubManifest(wsId) != manifest);
}

void tst_SessionCli::movedOnAcrossEngines()
{
    // The 412 itself: the other engine's session knows the manifest it saw last, uploads its
    // segment, and the compare-and-swap refuses the manifest.
    const QString wsId = m_fx->createWorkspace(QStringLiteral("cas"));
    QVERIFY(!wsId.isEmpty());
    const Sess a = sessionOf(m_fx->newSession(0, QStringLiteral("cas")));
    QVERIFY(a.write(QStringLiteral("base.txt"), "base\n"));
    QCOMPARE(cli({QStringLiteral("save"), a.id}).exitCode, 0);
    const Sess b = sessionOf(m_fx->newSession(1, QStringLiteral("cas")));
    QCOMPARE(b.read(QStringLiteral("base.txt")), QByteArray("base\n"));
    QVERIFY(b.write(QStringLiteral("b.txt"), "b\n"));
    QCOMPARE(m_fx->cli(1, {QStringLiteral("save"), b.id, QStringLiteral("-m"), QStringLiteral("first b")}).exitCode, 0);

    QVERIFY(a.write(QStringLiteral("a.txt"), "a\n"));
    const QByteArray mainBefore = a.ref(QStringLiteral("refs/heads/main"));
    const QByteArray manifest = m_fx->hubManifest(wsId);
    const QStringList segments = m_fx->hubSegments(wsId);
    const CliRun saved = cli({QStringLiteral("save"), a.id, QStringLiteral("--json")});
    QCOMPARE(saved.exitCode, kMovedOn);
    QCOMPARE(m_fx->hubManifest(wsId), manifest);
    QTRY_COMPARE_WITH_TIMEOUT(m_fx->hubSegments(wsId), segments, 10000);
    QCOMPARE(a.ref(QStringLiteral("refs/heads/main")), mainBefore);
    QCOMPARE(a.git({QStringLiteral("show"), QStringLiteral("session/") + a.id + QStringLiteral(":a.txt")}).out,
        QByteArray("a\n"));
    QCOMPARE(cli({QStringLiteral("sync"), a.id}).exitCode, 0);
    QCOMPARE(cli({QStringLiteral("save"), a.id}).exitCode, 0);
    QCOMPARE(m_fx->cli(1, {QStringLiteral("sync"), b.id}).exitCode, 0);
    QCOMPARE(b.read(QStringLiteral("a.txt")), QByteArray("a\n"));
}

void tst_SessionCli::changesRefresh()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("refresh"), {{QStringLiteral("x.txt"), "x\n"}}, &a, &b));
    CliRun r = cli({QStringLiteral("changes"), b.id, QStringLiteral("--refresh"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.json().value(QStringLiteral("refreshed")).toBool());
    QVERIFY(!r.json().value(QStringLiteral("movedOn")).toBool());

    QVERIFY(a.write(QStringLiteral("x.txt"), "x2\n"));
    QVERIFY(b.write(QStringLiteral("y.txt"), "y\n"));
    QCOMPARE(cli({QStringLiteral("save"), a.id}).exitCode, 0);
    r = cli({QStringLiteral("changes"), b.id, QStringLiteral("--refresh"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.json().value(QStringLiteral("movedOn")).toBool());
    const QJsonArray files = r.json().value(QStringLiteral("files")).toArray();
    QCOMPARE(files.size(), 1);
    QCOMPARE(files.at(0).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("y.txt"));
    QCOMPARE(files.at(0).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("untracked"));
    // Without --refresh the hub is not asked.
    r = cli({QStringLiteral("changes"), b.id, QStringLiteral("--json")});
    QVERIFY(!r.json().value(QStringLiteral("refreshed")).toBool());
    r = cli({QStringLiteral("changes"), b.id});
    QVERIFY2(r.out.contains("y.txt"), r.out.constData());
}

void tst_SessionCli::nestedRepositoryStaysOut()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("nested"), {{QStringLiteral("top.txt"), "top\n"}}, &a, &b));
    // A repository of its own inside the worktree, with a commit, as `git clone` would leave it.
    const QString nested = a.work + QStringLiteral("/vendor/lib");
    QVERIFY(GitCli::writeFile(nested + QStringLiteral("/lib.c"), "int lib;\n"));
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q")}, nested).ok());
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, nested).ok());
    QVERIFY(GitCli::run(
        {QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("lib")}, nested)
                .ok());
    QVERIFY(a.write(QStringLiteral("vendor/readme.txt"), "vendored\n"));
    const CliRun saved = cli({QStringLiteral("save"), a.id, QStringLiteral("--json")});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));

    // Not in main (no file, no gitlink), not on the hub, not in another session.
    const QByteArray tree = a.git({QStringLiteral("ls-tree"), QStringLiteral("-r"), QStringLiteral("main")}).out;
    QVERIFY2(tree.contains("vendor/readme.txt") && !tree.contains("vendor/lib"), tree.constData());
    const QString bundle = m_fx->dir() + QStringLiteral("/nested.bundle");
    QCOMPARE(
        cli({QStringLiteral("workspace"), QStringLiteral("bundle"), QStringLiteral("nested"), bundle}).exitCode, 0);
    const QString clone = m_fx->dir() + QStringLiteral("/nested-clone");
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), bundle, clone}).ok());
    QVERIFY(QFile::exists(clone + QStringLiteral("/vendor/readme.txt")));
    QVERIFY(!QFile::exists(clone + QStringLiteral("/vendor/lib")));
    QVERIFY(GitCli::run(
                {QStringLiteral("cat-file"), QStringLiteral("-e"),
                    QString::fromLatin1(GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, nested))},
                clone)
                .exitCode
        != 0);
    QCOMPARE(cli({QStringLiteral("sync"), b.id}).exitCode, 0);
    QVERIFY(QFile::exists(b.work + QStringLiteral("/vendor/readme.txt")));
    QVERIFY(!QFile::exists(b.work + QStringLiteral("/vendor/lib")));
    // The nested repository itself is untouched.
    QCOMPARE(GitCli::readFile(nested + QStringLiteral("/lib.c")), QByteArray("int lib;\n"));
}

QTEST_GUILESS_MAIN(tst_SessionCli)
#include "tst_sessioncli.moc"
