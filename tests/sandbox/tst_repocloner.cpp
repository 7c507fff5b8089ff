// Clones over authenticated HTTP from a real git smart-HTTP server the test starts (`git
// http-backend` behind Python's http.server with Basic auth): the credential reaches the server
// and appears in no command line (every /proc/*/cmdline read while the clone runs) and no file;
// the clone is a nested repository the workspace leaves out of its commits; a wrong or missing
// credential fails cleanly, cancel() stops, and what the cloner refuses it refuses before starting.
#include "canaryscan.h"
#include "core/clock.h"
#include "crypto/random.h"
#include "gitcli.h"
#include "sandbox/repocloner.h"
#include "testsession.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

class tst_RepoCloner final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void canaryScanFindsWhatItLooksFor();
    void refusedBeforeStarting_data();
    void refusedBeforeStarting();
    void clonesWithTheCredentialInNoCommandLineAndNoFile();
    void clonesABranch();
    void wrongCredentialFails_data();
    void wrongCredentialFails();
    void cancelLeavesNothing();
    void targetMustBeEmpty();

private:
    QString url(const QString &repo) const;
    CloneRequest request(const QString &directory, const QByteArray &token) const;
    Result<CloneResult, SandboxError> cloneAndWatch(CloneRequest request, QStringList *cmdlineHits, int *scans);

    QTemporaryDir m_tmp;
    QString m_root;
    QProcess m_server;
    QByteArray m_serverLog;
    quint16 m_port = 0;
    QByteArray m_user;
    QByteArray m_token;
    QByteArray m_mainHead;
    QByteArray m_featureHead;
    ManualClock m_clock;
    TestSession m_session;
    QDateTime m_started;
};

QString tst_RepoCloner::url(const QString &repo) const
{
    return QStringLiteral("http://127.0.0.1:%1/cgi-bin/git/%2").arg(m_port).arg(repo);
}

CloneRequest tst_RepoCloner::request(const QString &directory, const QByteArray &token) const
{
    CloneRequest r;
    r.url = url(QStringLiteral("tools.git"));
    r.worktree = m_session.work;
    r.directory = directory;
    r.username = SecureBytes(QByteArrayView(m_user));
    r.token = SecureBytes(QByteArrayView(token));
    return r;
}

void tst_RepoCloner::initTestCase()
{
    m_started = QDateTime::currentDateTime().addSecs(-1);
    m_root = QDir(m_tmp.path()).canonicalPath();
    m_user = "alice";
    m_token = "ghp_canary_" + randomBytes(16).toHex();

    // The repository served: two branches, made with the real git CLI.
    const QString src = m_root + QStringLiteral("/src");
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), src}).ok());
    QVERIFY(GitCli::writeFile(src + QStringLiteral("/README.md"), "the tools\n"));
    QVERIFY(GitCli::writeFile(src + QStringLiteral("/bin/tool.sh"), "#!/bin/sh\necho tool\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, src).ok());
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("tools")}, src).ok());
    m_mainHead = GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, src);
    QVERIFY(GitCli::run({QStringLiteral("checkout"), QStringLiteral("-qb"), QStringLiteral("feature")}, src).ok());
    QVERIFY(GitCli::writeFile(src + QStringLiteral("/feature.txt"), "a feature\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, src).ok());
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("feature")}, src).ok());
    m_featureHead = GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, src);
    QVERIFY(GitCli::run({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")}, src).ok());
    QVERIFY(GitCli::run({QStringLiteral("clone"), QStringLiteral("-q"), QStringLiteral("--bare"), src,
                            m_root + QStringLiteral("/served/tools.git")})
                .ok());

    // The server gets user and password on stdin: in no command line, environment or file.
    m_server.setProgram(QStringLiteral(ISOLATION_PYTHON3));
    m_server.setArguments({QStringLiteral(ISOLATION_GIT_HTTP_SERVER), m_root + QStringLiteral("/served")});
    m_server.setProcessChannelMode(QProcess::SeparateChannels);
    m_server.start();
    QVERIFY(m_server.waitForStarted());
    m_server.write(QByteArray(m_user + '\n' + m_token + '\n'));
    m_server.closeWriteChannel();
    QTRY_VERIFY_WITH_TIMEOUT(m_server.canReadLine(), 10000);
    const QByteArray line = m_server.readLine().trimmed();
    QVERIFY2(line.startsWith("PORT "), line.constData());
    m_port = quint16(line.mid(5).toUInt());
    QVERIFY(m_port != 0);

    m_session = TestSession::open(m_root, QStringLiteral("s1"), m_clock);
    QVERIFY(m_session.valid());
}

void tst_RepoCloner::cleanupTestCase()
{
    if (m_server.state() != QProcess::NotRunning) {
        m_server.terminate();
        if (!m_server.waitForFinished(5000)) {
            m_server.kill();
            m_server.waitForFinished();
        }
    }
    m_serverLog += m_server.readAllStandardError();
    qInfo().noquote() << "git server log:\n" << m_serverLog;
}

Result<CloneResult, SandboxError> tst_RepoCloner::cloneAndWatch(
    CloneRequest request, QStringList *cmdlineHits, int *scans)
{
    RepoCloner cloner;
    std::optional<Result<CloneResult, SandboxError>> result;
    CanaryScan scan({m_token});
    cloner.start(std::move(request), [&result](Result<CloneResult, SandboxError> r) { result.emplace(std::move(r)); });
    QElapsedTimer t;
    t.start();
    while (!result && t.elapsed() < 60000) {
        // Every process's command line, over and over while libgit2 and the server's CGI children run.
        *cmdlineHits << scan.commandLines();
        ++*scans;
        QTest::qWait(2);
    }
    if (!result)
        return SandboxError::failed(QStringLiteral("the clone did not finish within a minute"));
    return *result;
}

// The search the other tests rely on finds a canary where one is: a command line, a file, HTTP
// Basic's base64 and an unreachable git object.
void tst_RepoCloner::canaryScanFindsWhatItLooksFor()
{
    const QByteArray canary = "canary-" + randomBytes(12).toHex();
    CanaryScan scan({canary});
    // `read` is the shell's own: it forks no child, which between its fork and its exec would
    // carry the shell's command line (and the canary) on after the shell is killed (seen once
    // under CI's load).
    QProcess holder;
    holder.start(
        QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("read line"), QString::fromUtf8(canary)});
    QVERIFY(holder.waitForStarted());
    const QStringList seen = scan.commandLines();
    holder.kill();
    holder.waitForFinished();
    QCOMPARE(seen.size(), 1);
    QVERIFY(seen.first().startsWith(QString::number(holder.processId()))
        || seen.first().contains(QStringLiteral("read line")));
    QVERIFY(scan.commandLines().isEmpty());

    QTemporaryDir dir;
    QVERIFY(GitCli::writeFile(dir.filePath(QStringLiteral("a/b/clean.txt")), "nothing here\n"));
    int scanned = 0;
    QVERIFY(scan.files(dir.path(), &scanned).isEmpty());
    QCOMPARE(scanned, 1);
    QVERIFY(GitCli::writeFile(dir.filePath(QStringLiteral("a/b/auth.txt")),
        "Authorization: Basic " + QByteArray("alice:" + canary).toBase64() + "\n"));
    QCOMPARE(scan.files(dir.path()), QStringList {dir.filePath(QStringLiteral("a/b/auth.txt"))});
    for (int shift = 0; shift < 3; ++shift)
        QVERIFY(scan.holds(QByteArray(QByteArray(shift + 1, 'u') + ':' + canary).toBase64()));

    const QString repo = dir.filePath(QStringLiteral("repo"));
    QVERIFY(GitCli::run({QStringLiteral("init"), QStringLiteral("-q"), repo}).ok());
    QVERIFY(GitCli::writeFile(repo + QStringLiteral("/f.txt"), "plain\n"));
    QVERIFY(GitCli::run({QStringLiteral("add"), QStringLiteral(".")}, repo).ok());
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("one")}, repo).ok());
    QVERIFY(GitCli::writeFile(repo + QStringLiteral("/f.txt"), canary + "\n"));
    QVERIFY(GitCli::run({QStringLiteral("commit"), QStringLiteral("-qam"), QStringLiteral("two")}, repo).ok());
    QVERIFY(GitCli::run(
        {QStringLiteral("reset"), QStringLiteral("-q"), QStringLiteral("--hard"), QStringLiteral("HEAD~1")}, repo)
                .ok());
    QVERIFY(GitCli::run(
        {QStringLiteral("reflog"), QStringLiteral("expire"), QStringLiteral("--expire=now"), QStringLiteral("--all")},
        repo)
                .ok());
    int objects = 0;
    const QStringList found = scan.gitObjects(repo + QStringLiteral("/.git"), &objects);
    QCOMPARE(found.size(), 1); // the blob, unreachable now
    QVERIFY(found.first().endsWith(QStringLiteral(" blob")));
    QVERIFY(objects >= 6);
}

void tst_RepoCloner::refusedBeforeStarting_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("directory");
    const QString good = QStringLiteral("https://example.invalid/r.git");
    // ssh ones need a key and the server's host key (tst_sshclone clones over ssh).
    QTest::newRow("ssh without a key") << QStringLiteral("ssh://example.invalid/r.git") << QStringLiteral("r");
    QTest::newRow("scp-like without a key") << QStringLiteral("git@example.invalid:r.git") << QStringLiteral("r");
    QTest::newRow("file") << QStringLiteral("file:///etc") << QStringLiteral("r");
    QTest::newRow("plain http to another machine")
        << QStringLiteral("http://example.invalid/r.git") << QStringLiteral("r");
    QTest::newRow("a credential in the URL")
        << QStringLiteral("https://alice:tok@example.invalid/r.git") << QStringLiteral("r");
    QTest::newRow("a user in the URL") << QStringLiteral("https://alice@example.invalid/r.git") << QStringLiteral("r");
    QTest::newRow("an absolute directory") << good << QStringLiteral("/tmp/r");
    QTest::newRow("a directory leaving the worktree") << good << QStringLiteral("../r");
    QTest::newRow("a directory through ..") << good << QStringLiteral("a/../../r");
    QTest::newRow("into .git") << good << QStringLiteral(".git/r");
    QTest::newRow("the worktree itself") << good << QString();
    QTest::newRow("the worktree itself, dotted") << good << QStringLiteral(".");
}

void tst_RepoCloner::refusedBeforeStarting()
{
    QFETCH(QString, url);
    QFETCH(QString, directory);
    CloneRequest r = request(directory, m_token);
    r.url = url;
    auto checked = RepoCloner::check(r);
    QVERIFY(!checked.ok());
    QCOMPARE(checked.error().code, SandboxError::Code::Refused);
    RepoCloner cloner;
    std::optional<Result<CloneResult, SandboxError>> result;
    cloner.start(std::move(r), [&result](Result<CloneResult, SandboxError> x) { result.emplace(std::move(x)); });
    QVERIFY(!result); // never inside the call
    QTRY_VERIFY(result.has_value());
    QCOMPARE(result->error().code, SandboxError::Code::Refused);
}

void tst_RepoCloner::clonesWithTheCredentialInNoCommandLineAndNoFile()
{
    QStringList hits;
    int scans = 0;
    RepoCloner probe; // progress is reported: watch it on a cloner of its own
    QSignalSpy progress(&probe, &RepoCloner::progress);
    std::optional<Result<CloneResult, SandboxError>> viaProbe;
    probe.start(request(QStringLiteral("repos/probe"), m_token),
        [&viaProbe](Result<CloneResult, SandboxError> r) { viaProbe.emplace(std::move(r)); });
    QTRY_VERIFY_WITH_TIMEOUT(viaProbe.has_value(), 60000);
    QVERIFY2(viaProbe->ok(), viaProbe->ok() ? "" : qPrintable(viaProbe->error().message));
    QVERIFY(progress.count() >= 1);

    auto result = cloneAndWatch(request(QStringLiteral("repos/tools"), m_token), &hits, &scans);
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().message));
    qInfo() << "command lines of every process read" << scans << "times during the clone";
    QVERIFY(scans >= 3);
    QVERIFY2(hits.isEmpty(), qPrintable(hits.join(QLatin1Char('\n'))));

    const QString clone = m_session.work + QStringLiteral("/repos/tools");
    QCOMPARE(result.value().path, clone);
    QCOMPARE(result.value().head.toLatin1(), m_mainHead);
    QCOMPARE(GitCli::readFile(clone + QStringLiteral("/README.md")), QByteArray("the tools\n"));
    // A real repository of its own: the git CLI reads it, and its remote carries no credential.
    QCOMPARE(GitCli::out({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, clone), m_mainHead);
    const QByteArray remote
        = GitCli::out({QStringLiteral("remote"), QStringLiteral("get-url"), QStringLiteral("origin")}, clone);
    QCOMPARE(remote, url(QStringLiteral("tools.git")).toUtf8());

    // The server asked for the credential (401) and then served the pack to it.
    QTRY_VERIFY((m_serverLog += m_server.readAllStandardError()).contains("401 GET /cgi-bin/git/tools.git/info/refs"));
    QTRY_VERIFY(
        (m_serverLog += m_server.readAllStandardError()).contains("200 POST /cgi-bin/git/tools.git/git-upload-pack"));

    // No file anywhere the engine or the test wrote holds it: the worktree (the clone's .git
    // included), the session's git data, the temporary files of this run.
    CanaryScan scan({m_token});
    int files = 0;
    QStringList found = scan.files(m_root, &files);
    found << scan.temporaryFiles(m_started, &files);
    found << scan.gitObjects(clone + QStringLiteral("/.git"));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
    qInfo() << files << "files searched for the credential";
    QVERIFY(files > 20);

    // The clone is a nested repository: a save of the workspace leaves it out.
    QVERIFY(m_session.write(QStringLiteral("notes.txt"), "my notes\n"));
    auto committed = m_session.ws->commit();
    QVERIFY2(committed.ok(), committed.ok() ? "" : qPrintable(committed.error().message));
    QVERIFY(committed.value().created);
    const QStringList tracked
        = m_session.files(QStringLiteral("session/s1")).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(tracked.contains(QStringLiteral("notes.txt")), qPrintable(tracked.join(QLatin1Char(' '))));
    for (const QString &path : tracked)
        QVERIFY2(!path.startsWith(QLatin1String("repos/")), qPrintable(path));
    auto changes = m_session.ws->changes();
    QVERIFY(changes.ok());
    for (const FileChange &c : changes.value().files)
        QVERIFY2(!c.path.startsWith(QLatin1String("repos/")), qPrintable(c.path));
}

void tst_RepoCloner::clonesABranch()
{
    CloneRequest r = request(QStringLiteral("repos/feature"), m_token);
    r.branch = QStringLiteral("feature");
    QStringList hits;
    int scans = 0;
    auto result = cloneAndWatch(std::move(r), &hits, &scans);
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().message));
    QCOMPARE(result.value().head.toLatin1(), m_featureHead);
    QVERIFY(QFile::exists(m_session.work + QStringLiteral("/repos/feature/feature.txt")));
    QVERIFY(hits.isEmpty());
}

void tst_RepoCloner::wrongCredentialFails_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::newRow("a wrong token") << QByteArray("ghp_wrong_" + randomBytes(8).toHex());
    QTest::newRow("no token") << QByteArray();
}

void tst_RepoCloner::wrongCredentialFails()
{
    QFETCH(QByteArray, token);
    QStringList hits;
    int scans = 0;
    QElapsedTimer t;
    t.start();
    auto result = cloneAndWatch(request(QStringLiteral("repos/denied"), token), &hits, &scans);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, SandboxError::Code::Failed);
    QVERIFY2(t.elapsed() < 20000, "a refused credential must not be retried in a loop");
    if (!token.isEmpty())
        QVERIFY2(result.error().message.contains(QStringLiteral("refused the credential")),
            qPrintable(result.error().message));
    QVERIFY(!result.error().message.contains(QString::fromUtf8(m_token)));
    QVERIFY(!QFileInfo::exists(m_session.work + QStringLiteral("/repos/denied")));
}

void tst_RepoCloner::cancelLeavesNothing()
{
    RepoCloner cloner;
    std::optional<Result<CloneResult, SandboxError>> result;
    cloner.start(request(QStringLiteral("repos/cancelled"), m_token),
        [&result](Result<CloneResult, SandboxError> r) { result.emplace(std::move(r)); });
    QVERIFY(cloner.isRunning());
    cloner.cancel(); // before the first answer of the server comes back
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 30000);
    QVERIFY(!result->ok());
    QCOMPARE(result->error().code, SandboxError::Code::Cancelled);
    QVERIFY(!cloner.isRunning());
    QVERIFY(!QFileInfo::exists(m_session.work + QStringLiteral("/repos/cancelled")));

    // Destroying a cloner in flight cancels it and waits for its thread (ASan would see the rest).
    {
        RepoCloner dying;
        bool called = false;
        dying.start(request(QStringLiteral("repos/dying"), m_token), [&called](auto) { called = true; });
    }
    QTest::qWait(50);
}

void tst_RepoCloner::targetMustBeEmpty()
{
    QVERIFY(m_session.write(QStringLiteral("repos/taken/file.txt"), "mine\n"));
    RepoCloner cloner;
    std::optional<Result<CloneResult, SandboxError>> result;
    cloner.start(request(QStringLiteral("repos/taken"), m_token),
        [&result](Result<CloneResult, SandboxError> r) { result.emplace(std::move(r)); });
    QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), 30000);
    QVERIFY(!result->ok());
    QCOMPARE(result->error().code, SandboxError::Code::Refused);
    QCOMPARE(m_session.read(QStringLiteral("repos/taken/file.txt")), QByteArray("mine\n"));

    // An empty directory is fine.
    QVERIFY(QDir().mkpath(m_session.work + QStringLiteral("/repos/empty")));
    QStringList hits;
    int scans = 0;
    auto ok = cloneAndWatch(request(QStringLiteral("repos/empty"), m_token), &hits, &scans);
    QVERIFY2(ok.ok(), ok.ok() ? "" : qPrintable(ok.error().message));
}

QTEST_GUILESS_MAIN(tst_RepoCloner)
#include "tst_repocloner.moc"
