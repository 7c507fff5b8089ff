// Bundles: what the engine writes is read by `git bundle verify` and `git clone`; what `git bundle
// create` writes is read by the engine; segment chains rebuild the same refs; garbage is refused
// with a clear error and no change; a 2,000-file workspace round-trips.
#include "gitcli.h"
#include "testsession.h"
#include "workspace/bundleheader.h"

#include "core/clock.h"

#include <QBuffer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace isolation;
using isolation::test::GitCli;
using isolation::test::GitRun;
using isolation::test::TestSession;

class tst_WorkspaceBundle final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fullBundleVerifiesAndClones();
    void thinBundleVerifiesAgainstAClone();
    void upToDateWritesNothing();
    void readsGitBundleCreate();
    void chainRebuildsTheSameRefs();
    void garbageIsRefused_data();
    void garbageIsRefused();
    void largeWorkspaceRoundTrip();
    void exportTreeLeavesCredentialsOut();

private:
    static bool writeBytes(const QString &path, const QByteArray &bytes) { return GitCli::writeFile(path, bytes); }
    ManualClock m_clock;
};

void tst_WorkspaceBundle::fullBundleVerifiesAndClones()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QVERIFY(s.write(QStringLiteral("README.md"), "# hello\n"));
    QVERIFY(s.write(QStringLiteral("src/main.c"), "int main(void) { return 0; }\n"));
    QByteArray binary(70000, Qt::Uninitialized);
    for (qsizetype i = 0; i < binary.size(); ++i)
        binary[i] = char(QRandomGenerator::global()->bounded(256));
    QVERIFY(s.write(QStringLiteral("data/blob.bin"), binary));
    QVERIFY(s.write(QStringLiteral("run.sh"), "#!/bin/sh\necho hi\n"));
    QVERIFY(QFile::setPermissions(s.work + QStringLiteral("/run.sh"),
        QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup));
    QVERIFY(QFile::link(QStringLiteral("README.md"), s.work + QStringLiteral("/link")));
    const QByteArray segment = s.save(QStringLiteral("first"));
    QVERIFY(!segment.isEmpty());
    QVERIFY(segment.startsWith("# v2 git bundle\n"));

    for (const bool exported : {false, true}) {
        const QString bundle
            = root.path() + (exported ? QStringLiteral("/export.bundle") : QStringLiteral("/seg.bundle"));
        if (exported) {
            QFile out(bundle);
            QVERIFY(out.open(QIODevice::WriteOnly));
            auto r = s.ws->exportBundle(out);
            QVERIFY(r && r.value().written);
            QVERIFY(r.value().prerequisites.isEmpty());
        } else {
            QVERIFY(writeBytes(bundle, segment));
        }
        // git verifies inside a repository; an empty one has every prerequisite of a full bundle.
        const QString scratch = root.path() + QStringLiteral("/verify");
        QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), scratch}).ok());
        const GitRun verify = GitCli::run({QStringLiteral("bundle"), QStringLiteral("verify"), bundle}, scratch);
        QVERIFY2(verify.ok(), qPrintable(verify.describe()));
        const QString clone = root.path() + (exported ? QStringLiteral("/clone-export") : QStringLiteral("/clone-seg"));
        const GitRun cloned = GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), bundle, clone});
        QVERIFY2(cloned.ok(), qPrintable(cloned.describe()));
        QCOMPARE(
            GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, clone), s.rev(QStringLiteral("main")));
        QCOMPARE(GitCli::out({QStringLiteral("symbolic-ref"), QStringLiteral("HEAD")}, clone),
            QByteArray("refs/heads/main"));
        QCOMPARE(GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("origin/session/s1")}, clone),
            s.rev(QStringLiteral("session/s1")));
        // The tree checked out is the worktree's, byte for byte, modes included.
        QCOMPARE(GitCli::snapshot(clone, {QStringLiteral(".git/")}), GitCli::snapshot(s.work));
        QVERIFY(QFileInfo(clone + QStringLiteral("/run.sh")).isExecutable());
        QVERIFY(QFileInfo(clone + QStringLiteral("/link")).isSymLink());
        const GitRun fsck = GitCli::run({QStringLiteral("fsck"), QStringLiteral("--strict")}, clone);
        QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));
    }
}

void tst_WorkspaceBundle::thinBundleVerifiesAgainstAClone()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    for (int i = 0; i < 20; ++i) {
        QByteArray noise(4000, Qt::Uninitialized);
        for (qsizetype j = 0; j < noise.size(); ++j)
            noise[j] = char(QRandomGenerator::global()->bounded(256));
        QVERIFY(s.write(QStringLiteral("f%1.bin").arg(i), noise));
    }
    const QByteArray full = s.save();
    QVERIFY(!full.isEmpty());
    const QString fullPath = root.path() + QStringLiteral("/full.bundle");
    QVERIFY(writeBytes(fullPath, full));
    const QString clone = root.path() + QStringLiteral("/clone");
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), fullPath, clone}).ok());

    QVERIFY(s.write(QStringLiteral("f3.bin"), "changed\n"));
    const QByteArray thin = s.save();
    QVERIFY(!thin.isEmpty());
    QVERIFY2(thin.size() < full.size() / 5, qPrintable(QStringLiteral("%1 vs %2").arg(thin.size()).arg(full.size())));
    QBuffer header;
    header.setData(thin);
    header.open(QIODevice::ReadOnly);
    auto parsed = BundleHeader::read(header);
    QVERIFY(parsed);
    QVERIFY(!parsed.value().prerequisites.isEmpty());
    const QString thinPath = root.path() + QStringLiteral("/thin.bundle");
    QVERIFY(writeBytes(thinPath, thin));

    // A clone with the prerequisites verifies it and fetches from it; an empty repository cannot.
    const GitRun verify = GitCli::run({QStringLiteral("bundle"), QStringLiteral("verify"), thinPath}, clone);
    QVERIFY2(verify.ok(), qPrintable(verify.describe()));
    const GitRun fetch = GitCli::run(
        {QStringLiteral("fetch"), QStringLiteral("-q"), thinPath, QStringLiteral("refs/heads/*:refs/remotes/thin/*")},
        clone);
    QVERIFY2(fetch.ok(), qPrintable(fetch.describe()));
    QCOMPARE(
        GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("thin/main")}, clone), s.rev(QStringLiteral("main")));
    QCOMPARE(GitCli::out({QStringLiteral("show"), QStringLiteral("thin/main:f3.bin")}, clone), QByteArray("changed"));
    const QString empty = root.path() + QStringLiteral("/empty");
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), empty}).ok());
    const GitRun lacking = GitCli::run({QStringLiteral("bundle"), QStringLiteral("verify"), thinPath}, empty);
    QVERIFY(!lacking.ok());
    QVERIFY2(lacking.err.contains("prerequisite"), lacking.err.constData());
}

void tst_WorkspaceBundle::upToDateWritesNothing()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    QVERIFY(s.write(QStringLiteral("a"), "a"));
    QVERIFY(!s.save().isEmpty());
    QBuffer out;
    out.open(QIODevice::WriteOnly);
    auto again = s.ws->writeSegment(out);
    QVERIFY(again);
    QVERIFY(!again.value().written);
    QCOMPARE(out.data().size(), 0);
}

void tst_WorkspaceBundle::readsGitBundleCreate()
{
    // A repository made by git alone: branches main and session/other, a tag, history.
    QTemporaryDir root;
    const QString repo = root.path() + QStringLiteral("/plain");
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), repo}).ok());
    QVERIFY(writeBytes(repo + QStringLiteral("/x.txt"), "x1\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, repo).ok());
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("one")}, repo).ok());
    QVERIFY(GitCli::run(
        {QStringLiteral("tag"), QStringLiteral("-a"), QStringLiteral("v1"), QStringLiteral("-m"), QStringLiteral("v1")},
        repo)
                .ok());
    QVERIFY(GitCli::run({QStringLiteral("branch"), QStringLiteral("session/other")}, repo).ok());
    const QString full = root.path() + QStringLiteral("/all.bundle");
    QVERIFY(GitCli::run(
        {QStringLiteral("bundle"), QStringLiteral("create"), QStringLiteral("-q"), full, QStringLiteral("--all")}, repo)
                .ok());

    TestSession s = TestSession::open(root.path(), QStringLiteral("me"), m_clock);
    QVERIFY(s.valid());
    auto applied = s.apply(GitCli::readFile(full));
    QVERIFY2(applied, qPrintable(applied ? QString() : applied.error().message));
    const QByteArray gitMain = GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("main")}, repo);
    QCOMPARE(applied.value().main, gitMain);
    QCOMPARE(s.rev(QStringLiteral("main")), gitMain);
    QCOMPARE(s.rev(QStringLiteral("session/other")), gitMain);
    QCOMPARE(s.rev(QStringLiteral("refs/isolation/hub/main")), gitMain);
    QCOMPARE(applied.value().refs.size(), 2); // HEAD and the tag are not workspace branches
    QVERIFY(s.rev(QStringLiteral("refs/tags/v1")).isEmpty());
    // Every object arrived: the tag object too, as git's fsck sees it.
    const GitRun fsck = s.git({QStringLiteral("fsck"), QStringLiteral("--no-dangling")});
    QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));

    // A thin bundle from git, on top.
    const QByteArray before = gitMain;
    QVERIFY(writeBytes(repo + QStringLiteral("/x.txt"), "x2\n"));
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qam"), QStringLiteral("two")}, repo).ok());
    const QString thin = root.path() + QStringLiteral("/thin.bundle");
    QVERIFY(GitCli::run({QStringLiteral("bundle"), QStringLiteral("create"), QStringLiteral("-q"), thin,
                            QStringLiteral("main"), QStringLiteral("^") + QString::fromLatin1(before)},
        repo)
                .ok());
    auto second = s.apply(GitCli::readFile(thin));
    QVERIFY2(second, qPrintable(second ? QString() : second.error().message));
    QCOMPARE(s.rev(QStringLiteral("main")), GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("main")}, repo));
    // And the session takes it in.
    auto sync = s.ws->mergeMainIntoSession();
    QVERIFY(sync);
    QCOMPARE(s.read(QStringLiteral("x.txt")), QByteArray("x2\n"));
}

void tst_WorkspaceBundle::chainRebuildsTheSameRefs()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    QVERIFY(a.valid());
    QList<QByteArray> segments;
    for (int i = 0; i < 3; ++i) {
        QVERIFY(a.write(QStringLiteral("file%1.txt").arg(i), QByteArray::number(i)));
        QVERIFY(a.write(QStringLiteral("common.txt"), "version " + QByteArray::number(i)));
        m_clock.advance(std::chrono::minutes(1));
        segments.append(a.save(QStringLiteral("save %1").arg(i)));
        QVERIFY(!segments.last().isEmpty());
    }

    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(b.valid());
    // Out of order: the second segment needs the first.
    const auto gitDirBefore = GitCli::snapshot(b.gitDir);
    auto early = b.apply(segments.at(1));
    QVERIFY(!early);
    QCOMPARE(early.error().code, WorkspaceError::Code::NotFound);
    QVERIFY2(early.error().message.contains(QStringLiteral("earlier segments")), qPrintable(early.error().message));
    QCOMPARE(GitCli::snapshot(b.gitDir), gitDirBefore);

    for (const QByteArray &segment : segments) {
        auto r = b.apply(segment);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
    }
    for (const QString &ref : {QStringLiteral("refs/heads/main"), QStringLiteral("refs/heads/session/a"),
             QStringLiteral("refs/isolation/hub/main"), QStringLiteral("refs/isolation/hub/session/a")})
        QCOMPARE(b.rev(ref), a.rev(ref));
    QCOMPARE(b.ws->mergeMainIntoSession().value().outcome, SyncOutcome::FastForwarded);
    QCOMPARE(b.read(QStringLiteral("common.txt")), QByteArray("version 2"));
    // Re-applying a segment already applied changes nothing.
    auto again = b.apply(segments.last());
    QVERIFY(again);
    QCOMPARE(b.rev(QStringLiteral("main")), a.rev(QStringLiteral("main")));
}

void tst_WorkspaceBundle::garbageIsRefused_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const int corrupt = int(WorkspaceError::Code::Corrupt);
    QTest::newRow("empty") << "empty" << corrupt << "not a git bundle";
    QTest::newRow("bad signature") << "signature" << corrupt << "not a git bundle";
    QTest::newRow("bad ref line") << "refline" << corrupt << "malformed ref line";
    QTest::newRow("header never ends") << "noblank" << corrupt << "ends early";
    QTest::newRow("line too long") << "longline" << corrupt << "too long";
    QTest::newRow("missing prerequisite") << "prerequisite" << int(WorkspaceError::Code::NotFound) << "lacks";
    QTest::newRow("truncated pack") << "truncate" << corrupt << "pack";
    QTest::newRow("corrupted pack byte") << "flip" << corrupt << "pack";
    QTest::newRow("ref not in pack") << "ref" << corrupt << "does not carry";
    QTest::newRow("no pack at all") << "nopack" << corrupt << "pack";
    QTest::newRow("bytes after the pack") << "trailing" << corrupt << "pack";
    QTest::newRow("branch naming a blob") << "blobref" << corrupt << "not a commit";
    QTest::newRow("pack without a blob its tree names")
        << "noblob" << corrupt << "neither the bundle nor the repository";
}

void tst_WorkspaceBundle::garbageIsRefused()
{
    QFETCH(QString, damage);
    QFETCH(int, code);
    QFETCH(QString, message);
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    QVERIFY(a.valid());
    QByteArray content;
    for (int i = 0; i < 2000; ++i)
        content += "line " + QByteArray::number(i) + '\n';
    QVERIFY(a.write(QStringLiteral("big.txt"), content));
    const QByteArray good = a.save();
    QVERIFY(!good.isEmpty());
    const qsizetype packStart = good.indexOf("\n\n") + 2;
    const QByteArray head = good.left(packStart);

    QByteArray bad;
    if (damage == QLatin1String("empty")) {
    } else if (damage == QLatin1String("signature")) {
        bad = "# v9 git bundle\n" + good.mid(16);
    } else if (damage == QLatin1String("refline")) {
        bad = head.left(head.size() - 1) + "0123 refs/heads/x\n\n" + good.mid(packStart);
    } else if (damage == QLatin1String("noblank")) {
        bad = head.left(head.size() - 1);
    } else if (damage == QLatin1String("longline")) {
        bad = "# v2 git bundle\n-" + QByteArray(40, 'a') + ' ' + QByteArray(70000, 'x') + '\n';
    } else if (damage == QLatin1String("prerequisite")) {
        bad = "# v2 git bundle\n-" + QByteArray(40, 'b') + " gone\n" + good.mid(16);
    } else if (damage == QLatin1String("truncate")) {
        bad = good.left(good.size() - 100);
    } else if (damage == QLatin1String("flip")) {
        bad = good;
        bad[packStart + (good.size() - packStart) / 2] = char(bad[packStart + (good.size() - packStart) / 2] ^ 0x40);
    } else if (damage == QLatin1String("ref")) {
        bad = head.left(head.size() - 1) + QByteArray(40, 'c') + " refs/heads/session/ghost\n\n" + good.mid(packStart);
    } else if (damage == QLatin1String("blobref")) {
        bad = head.left(head.size() - 1) + a.rev(QStringLiteral("main:big.txt")) + " refs/heads/session/blob\n\n"
            + good.mid(packStart);
    } else if (damage == QLatin1String("trailing")) {
        bad = good + "trailing bytes";
    } else if (damage == QLatin1String("nopack")) {
        bad = head;
    } else if (damage == QLatin1String("noblob")) {
        // A well-formed pack by git itself, leaving out big.txt's blob.
        const QByteArray blob = a.rev(QStringLiteral("main:big.txt"));
        QByteArray list;
        for (const QByteArray &line :
            a.git({QStringLiteral("rev-list"), QStringLiteral("--objects"), QStringLiteral("--all")}).out.split('\n')) {
            if (!line.isEmpty() && !line.startsWith(blob))
                list += line.left(40) + '\n';
        }
        const GitRun pack = GitCli::run({QStringLiteral("--git-dir=") + a.gitDir, QStringLiteral("pack-objects"),
                                            QStringLiteral("--stdout"), QStringLiteral("-q")},
            {}, list);
        QVERIFY2(pack.ok(), qPrintable(pack.describe()));
        bad = head + pack.out;
    }

    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(b.valid());
    const auto before = GitCli::snapshot(b.gitDir);
    auto r = b.apply(bad);
    QVERIFY(!r);
    QCOMPARE(int(r.error().code), code);
    QVERIFY2(r.error().message.contains(message), qPrintable(r.error().message));
    qInfo() << damage << "→" << r.error().message;
    QCOMPARE(GitCli::snapshot(b.gitDir), before);
    // And the good one still applies afterwards.
    QVERIFY(b.apply(good));
    QCOMPARE(b.rev(QStringLiteral("main")), a.rev(QStringLiteral("main")));
}

void tst_WorkspaceBundle::largeWorkspaceRoundTrip()
{
    QTemporaryDir root;
    TestSession a = TestSession::open(root.path(), QStringLiteral("a"), m_clock);
    QVERIFY(a.valid());
    qint64 total = 0;
    for (int i = 0; i < 2000; ++i) {
        QByteArray bytes(1000 + (i * 37) % 7000, Qt::Uninitialized);
        for (qsizetype j = 0; j < bytes.size(); ++j)
            bytes[j] = char('a' + (i * 31 + j * 7) % 26);
        total += bytes.size();
        QVERIFY(a.write(QStringLiteral("d%1/e%2/file%3.txt").arg(i % 10).arg(i % 7).arg(i), bytes));
    }
    QElapsedTimer timer;
    timer.start();
    const QByteArray segment = a.save();
    const qint64 saveMs = timer.elapsed();
    QVERIFY(!segment.isEmpty());

    TestSession b = TestSession::open(root.path(), QStringLiteral("b"), m_clock);
    QVERIFY(b.valid());
    timer.restart();
    QVERIFY(b.apply(segment));
    QCOMPARE(b.ws->mergeMainIntoSession().value().outcome, SyncOutcome::FastForwarded);
    const qint64 restoreMs = timer.elapsed();
    QCOMPARE(GitCli::snapshot(b.work), GitCli::snapshot(a.work));
    QVERIFY(b.ws->changes().value().files.isEmpty());
    qInfo("2000 files, %lld bytes: save %lld ms, segment %lld bytes, restore %lld ms", total, saveMs,
        qint64(segment.size()), restoreMs);
}

void tst_WorkspaceBundle::exportTreeLeavesCredentialsOut()
{
    QTemporaryDir root;
    TestSession s = TestSession::open(root.path(), QStringLiteral("s1"), m_clock);
    QVERIFY(s.valid());
    const QMap<QString, QByteArray> kept {{QStringLiteral("README.md"), "readme\n"},
        {QStringLiteral("src/app.py"), "print('hi')\n"}, {QStringLiteral(".ssh/id_ed25519.pub"), "ssh-ed25519 AAAA\n"},
        {QStringLiteral("config/.envrc"), "use nix\n"}, {QStringLiteral("docs/keys.md"), "about keys\n"}};
    const QStringList credentials {QStringLiteral(".env"), QStringLiteral("api/.env.production"),
        QStringLiteral("certs/server.pem"), QStringLiteral("certs/server.key"), QStringLiteral(".ssh/id_ed25519"),
        QStringLiteral(".netrc"), QStringLiteral(".git-credentials"), QStringLiteral("web/.npmrc"),
        QStringLiteral(".pypirc"), QStringLiteral("home/.aws/credentials"), QStringLiteral(".docker/config.json")};
    for (auto it = kept.cbegin(); it != kept.cend(); ++it)
        QVERIFY(s.write(it.key(), it.value()));
    for (const QString &c : credentials)
        QVERIFY(s.write(c, "SECRET-" + c.toUtf8() + '\n'));
    QVERIFY(s.write(QStringLiteral("bin/tool"), "#!/bin/sh\n"));
    QVERIFY(QFile::setPermissions(
        s.work + QStringLiteral("/bin/tool"), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    QVERIFY(QFile::link(QStringLiteral("README.md"), s.work + QStringLiteral("/readme-link")));
    QVERIFY(!s.save().isEmpty());
    // Work not yet saved is not exported: the archive is main's tree.
    QVERIFY(s.write(QStringLiteral("unsaved.txt"), "unsaved\n"));

    const QString archivePath = root.path() + QStringLiteral("/w.tar.gz");
    QFile archive(archivePath);
    QVERIFY(archive.open(QIODevice::WriteOnly));
    const QByteArray definition = "{\"name\":\"demo\"}\n";
    auto r = s.ws->exportTree(archive, definition);
    archive.close();
    QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
    QStringList stripped = r.value().stripped;
    stripped.sort();
    QStringList expectedStripped = credentials;
    expectedStripped.sort();
    QCOMPARE(stripped, expectedStripped);
    QCOMPARE(r.value().files, int(kept.size()) + 2);
    QCOMPARE(r.value().bytes, QFileInfo(archivePath).size());

    // GNU tar reads it; what comes out is main minus the credentials, modes and links kept.
    const QString out = root.path() + QStringLiteral("/x");
    QVERIFY(QDir().mkpath(out));
    QProcess tar;
    tar.start(QStringLiteral("tar"), {QStringLiteral("-xzf"), archivePath, QStringLiteral("-C"), out});
    QVERIFY(tar.waitForFinished());
    QVERIFY2(tar.exitCode() == 0, tar.readAllStandardError().constData());
    auto files = GitCli::snapshot(out);
    QCOMPARE(files.take(QStringLiteral("definition.json")), definition);
    QMap<QString, QByteArray> expected;
    for (auto it = kept.cbegin(); it != kept.cend(); ++it)
        expected.insert(QStringLiteral("tree/") + it.key(), it.value());
    expected.insert(QStringLiteral("tree/bin/tool"), "#!/bin/sh\n");
    expected.insert(QStringLiteral("tree/readme-link"), "-> README.md");
    QCOMPARE(files, expected);
    QVERIFY(QFileInfo(out + QStringLiteral("/tree/bin/tool")).isExecutable());
    // Nowhere in the archive's bytes either (names or contents), decompressed.
    QProcess gunzip;
    gunzip.start(QStringLiteral("gzip"), {QStringLiteral("-dc"), archivePath});
    QVERIFY(gunzip.waitForFinished());
    const QByteArray raw = gunzip.readAllStandardOutput();
    QVERIFY(raw.contains("readme\n"));
    QVERIFY(!raw.contains("SECRET") && !raw.contains("server.pem") && !raw.contains(".netrc"));
}

QTEST_GUILESS_MAIN(tst_WorkspaceBundle)
#include "tst_workspacebundle.moc"
