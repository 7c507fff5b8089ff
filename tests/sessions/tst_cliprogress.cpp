// The CLI's progress for save and sync against a real engine and hub (issue 25, point 4): on a
// pseudo-terminal a line redrawn in place (operation, phase, bytes of a total), never wider than
// the terminal, cleared before the result; through a pipe nothing but the result; with --json
// --progress the engine's progress events first, as JSON, then the result. Ctrl-C cancels a save
// before its point of no return (nothing reaches the hub, main's merge is undone) and a sync
// before its merge (the session as it was): exit code 130. `session new` shows the restore (the
// download from the hub and the checkout) the same way, and Ctrl-C cancels it before the checkout
// (the new session removed); so do exports (no file written).
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation::test;

namespace {

constexpr qsizetype kBigFile = 24 * 1024 * 1024; // random: it neither compresses nor deltas

bool writeRandom(const QString &path, qsizetype size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32 *>(bytes.data()), size / 4);
    return GitCli::writeFile(path, bytes);
}

// What a terminal's line shows after each redraw: the text after each "\r\e[K" up to the next
// control character.
QList<QByteArray> drawnLines(const QByteArray &out)
{
    QList<QByteArray> lines;
    const QByteArray clear = "\r\033[K";
    for (qsizetype at = out.indexOf(clear); at >= 0; at = out.indexOf(clear, at + 1)) {
        const qsizetype from = at + clear.size();
        qsizetype end = from;
        while (end < out.size() && out[end] != '\r' && out[end] != '\n')
            ++end;
        lines.append(out.mid(from, end - from));
    }
    return lines;
}

// The {"progress": {...}} lines --json --progress prints first (each must parse), and what follows
// them in `rest`: the result, indented JSON as without --progress.
struct Streamed
{
    QList<QJsonObject> progress;
    QByteArray rest;
    bool wellFormed = true;
};

Streamed splitProgress(const QByteArray &out)
{
    Streamed s;
    s.rest = out;
    while (s.rest.startsWith("{\"progress\":")) {
        const qsizetype end = s.rest.indexOf('\n');
        QJsonParseError error;
        const QJsonObject line = QJsonDocument::fromJson(s.rest.left(end), &error).object();
        if (end < 0 || error.error != QJsonParseError::NoError) {
            s.wellFormed = false;
            return s;
        }
        s.progress.append(line.value(QStringLiteral("progress")).toObject());
        s.rest = s.rest.mid(end + 1);
    }
    return s;
}

} // namespace

class tst_CliProgress final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void saveAndSyncOnATerminal();
    void pipeGetsOnlyTheResult();
    void jsonStreamsTheEvents();
    void restoreAndExportShowTheDownload();
    void ctrlCCancelsTheSave();
    void ctrlCCancelsTheSync();
    void ctrlCCancelsTheRestore();
    void ctrlCCancelsAnExport();

private:
    // Runs `isolation-server ARGS` (ARGS ask for --json --progress), sends it SIGINT at the first progress
    // event of `phase` (which must say it is cancellable), and checks it ended as a cancel does:
    // exit 130, "Cancelling" on stderr, the error code cancelled. `printed`: its standard output.
    void cancelWithCtrlC(const QStringList &args, const QString &phase, QByteArray *printed = nullptr);
    // The warm cache of engine 0 without the workspace: a clear keeps a mirror in use (an export
    // that just answered, a spare being built), so it is asked again until the workspace is gone.
    bool emptyCache(const QJsonValue &workspaceId) const;
    // A new workspace `name` with three random files (3 x kBigFile) saved on the hub, then no
    // session of it on engine 0 and the warm cache without it: what comes next downloads it all.
    // `sessionsDir`: where engine 0 keeps its sessions.
    void saveOnlyOnTheHub(const QString &name, QString *sessionsDir = nullptr);

    std::unique_ptr<SessionFixture> m_fx;
};

void tst_CliProgress::cancelWithCtrlC(const QStringList &args, const QString &phase, QByteArray *printed)
{
    QProcess cli;
    m_fx->startCli(0, args, cli);
    QVERIFY(cli.waitForStarted());
    QByteArray out;
    bool sent = false;
    QDeadlineTimer deadline(120000);
    while (!sent && !deadline.hasExpired() && cli.state() == QProcess::Running) {
        cli.waitForReadyRead(100);
        out += cli.readAllStandardOutput();
        for (const QByteArray &line : out.split('\n')) {
            const QJsonObject p = QJsonDocument::fromJson(line).object().value(QStringLiteral("progress")).toObject();
            if (p.value(QStringLiteral("phase")).toString() == phase) {
                QVERIFY(p.value(QStringLiteral("cancellable")).toBool());
                ::kill(pid_t(cli.processId()), SIGINT);
                sent = true;
                break;
            }
        }
    }
    QVERIFY2(sent, out.constData());
    QVERIFY(cli.waitForFinished(120000));
    out += cli.readAllStandardOutput();
    const QByteArray err = cli.readAllStandardError();
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QVERIFY2(cli.exitCode() == 130, QByteArray(out.right(2000) + err).constData());
    QVERIFY2(err.contains("Cancelling"), err.constData());
    QVERIFY2(out.contains("\"code\": \"cancelled\""), out.right(2000).constData());
    if (printed)
        *printed = out;
}

void tst_CliProgress::saveOnlyOnTheHub(const QString &name, QString *sessionsDir)
{
    QVERIFY(!m_fx->createWorkspace(name).isEmpty());
    const QJsonObject first = m_fx->newSession(0, name);
    QVERIFY(!first.isEmpty());
    const QString work = first.value(QStringLiteral("worktree")).toString();
    if (sessionsDir)
        *sessionsDir = QFileInfo(QFileInfo(work).path()).path();
    for (int i = 0; i < 3; ++i)
        QVERIFY(writeRandom(work + QStringLiteral("/big%1.bin").arg(i), kBigFile));
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), first.value(QStringLiteral("id")).toString()});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    const CliRun finished = m_fx->cli(0, {QStringLiteral("finish"), first.value(QStringLiteral("id")).toString()});
    QVERIFY2(finished.exitCode == 0, qPrintable(finished.describe()));
    QVERIFY(emptyCache(first.value(QStringLiteral("workspace")).toObject().value(QStringLiteral("id"))));
}

bool tst_CliProgress::emptyCache(const QJsonValue &workspaceId) const
{
    QDeadlineTimer deadline(30000);
    CliRun cleared;
    do {
        cleared = m_fx->cli(0, {QStringLiteral("cache"), QStringLiteral("clear"), QStringLiteral("--json")});
        if (cleared.exitCode == 0 && !cleared.json().value(QStringLiteral("kept")).toArray().contains(workspaceId))
            return true;
        QTest::qWait(250);
    } while (!deadline.hasExpired());
    qWarning().noquote() << "the warm cache kept the workspace:" << cleared.describe();
    return false;
}

void tst_CliProgress::initTestCase()
{
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(1));
    QVERIFY(m_fx->startEngine(0));
}

void tst_CliProgress::cleanupTestCase()
{
    if (m_fx)
        m_fx->stopEngine(0);
    m_fx.reset();
}

void tst_CliProgress::saveAndSyncOnATerminal()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("progress-terminal")).isEmpty());
    const QJsonObject a = m_fx->newSession(0, QStringLiteral("progress-terminal"));
    const QJsonObject b = m_fx->newSession(0, QStringLiteral("progress-terminal"));
    QVERIFY(!a.isEmpty() && !b.isEmpty());
    const QString aId = a.value(QStringLiteral("id")).toString();
    QVERIFY(writeRandom(a.value(QStringLiteral("worktree")).toString() + QStringLiteral("/big.bin"), kBigFile));

    constexpr int columns = 50;
    const CliRun saved
        = m_fx->cliOnTerminal(0, {QStringLiteral("save"), aId, QStringLiteral("-m"), QStringLiteral("big")}, columns);
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    QList<QByteArray> lines = drawnLines(saved.out);
    QVERIFY2(lines.size() >= 3, saved.out.constData());
    // The line is cleared before the result, which is all that stays.
    QVERIFY2(lines.takeLast().startsWith("Saved "), saved.out.constData());
    for (const QByteArray &l : lines)
        QVERIFY2(QString::fromUtf8(l).size() <= columns - 1, l.constData());
    // The upload's figures: bytes of a total in MiB (the line cut at 49 columns keeps them).
    bool upload = false;
    for (const QByteArray &l : lines)
        upload = upload || (l.startsWith("Saving: uploading ") && l.contains(" MiB ("));
    QVERIFY2(upload, saved.out.constData());
    // The engine logs where the save's time went, phase by phase (bench/workspace reads it).
    const QRegularExpression timed(QStringLiteral("save of %1 took (\\d+) ms: start \\d+ ms, commit \\d+ ms, .*"
                                                  "upload (\\d+) ms, publish \\d+ ms, finish \\d+ ms")
                                       .arg(aId));
    QRegularExpressionMatch times;
    QTRY_VERIFY_WITH_TIMEOUT((times = timed.match(m_fx->engineLog(0))).hasMatch(), 10000);
    QVERIFY2(times.captured(2).toLongLong() > 0, qPrintable(times.captured(0))); // 24 MiB took a while
    QVERIFY2(times.captured(1).toLongLong() >= times.captured(2).toLongLong(), qPrintable(times.captured(0)));

    // The other session fetches what the first saved: the sync shows its download.
    const CliRun synced
        = m_fx->cliOnTerminal(0, {QStringLiteral("sync"), b.value(QStringLiteral("id")).toString()}, 100);
    QVERIFY2(synced.exitCode == 0, qPrintable(synced.describe()));
    bool syncing = false;
    for (const QByteArray &l : drawnLines(synced.out))
        syncing = syncing || l.startsWith("Syncing: ");
    QVERIFY2(syncing, synced.out.constData());
    QVERIFY2(synced.out.contains("Fast-forwarded to main"), synced.out.constData());
}

void tst_CliProgress::pipeGetsOnlyTheResult()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("progress-pipe")).isEmpty());
    const QJsonObject s = m_fx->newSession(0, QStringLiteral("progress-pipe"));
    QVERIFY(!s.isEmpty());
    QVERIFY(writeRandom(s.value(QStringLiteral("worktree")).toString() + QStringLiteral("/big.bin"), kBigFile));
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), s.value(QStringLiteral("id")).toString()});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    QCOMPARE(saved.err, QByteArray());
    QVERIFY2(saved.out.startsWith("Saved ") && !saved.out.contains('\r') && !saved.out.contains('\033'),
        saved.out.constData());
    QCOMPARE(saved.out.count('\n'), 1);
}

void tst_CliProgress::jsonStreamsTheEvents()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("progress-json")).isEmpty());
    const QJsonObject s = m_fx->newSession(0, QStringLiteral("progress-json"));
    QVERIFY(!s.isEmpty());
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(writeRandom(s.value(QStringLiteral("worktree")).toString() + QStringLiteral("/big.bin"), kBigFile));
    const CliRun saved
        = m_fx->cli(0, {QStringLiteral("save"), id, QStringLiteral("--json"), QStringLiteral("--progress")});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    QCOMPARE(saved.err, QByteArray());

    // Lines of {"progress": {...}}, then the result (indented JSON, as without --progress).
    const Streamed streamed = splitProgress(saved.out);
    QVERIFY2(streamed.wellFormed, saved.out.constData());
    QSet<QString> phases;
    qint64 uploadTotal = -1;
    for (const QJsonObject &p : streamed.progress) {
        QCOMPARE(p.value(QStringLiteral("session")).toString(), id);
        if (p.value(QStringLiteral("operation")).toString() == QLatin1String("save"))
            phases.insert(p.value(QStringLiteral("phase")).toString());
        if (p.value(QStringLiteral("phase")).toString() == QLatin1String("upload"))
            uploadTotal = std::max(uploadTotal, p.value(QStringLiteral("totalBytes")).toInteger(-1));
    }
    QVERIFY2(phases.contains(QStringLiteral("commit")) && phases.contains(QStringLiteral("upload")),
        qPrintable(QStringList(phases.values()).join(',')));
    QVERIFY2(uploadTotal > kBigFile, qPrintable(QString::number(uploadTotal))); // the encrypted segment
    QJsonParseError error;
    const QJsonObject result = QJsonDocument::fromJson(streamed.rest, &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, streamed.rest.constData());
    QVERIFY(result.value(QStringLiteral("published")).toBool());
}

// A session of a workspace the warm cache does not have is a restore: `session new` shows its
// download and checkout, as JSON lines with --json --progress and as a line on a terminal. An
// export of it (bundle, tree) shows its download and its writing the same way.
void tst_CliProgress::restoreAndExportShowTheDownload()
{
    const QString name = QStringLiteral("progress-restore");
    QVERIFY(!m_fx->createWorkspace(name).isEmpty());
    const QJsonObject first = m_fx->newSession(0, name);
    QVERIFY(!first.isEmpty());
    QVERIFY(writeRandom(first.value(QStringLiteral("worktree")).toString() + QStringLiteral("/big.bin"), kBigFile));
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), first.value(QStringLiteral("id")).toString()});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    // No session of it left, and the warm cache emptied: the next session comes from the hub.
    const QJsonValue workspaceId = first.value(QStringLiteral("workspace")).toObject().value(QStringLiteral("id"));
    auto forget = [this, workspaceId](const QString &id) {
        const CliRun finished = m_fx->cli(0, {QStringLiteral("finish"), id});
        QVERIFY2(finished.exitCode == 0, qPrintable(finished.describe()));
        QVERIFY(emptyCache(workspaceId));
    };
    forget(first.value(QStringLiteral("id")).toString());

    const CliRun opened = m_fx->cli(0,
        {QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"), name,
            QStringLiteral("--json"), QStringLiteral("--progress")});
    QVERIFY2(opened.exitCode == 0, qPrintable(opened.describe()));
    Streamed streamed = splitProgress(opened.out);
    QVERIFY2(streamed.wellFormed, opened.out.constData());
    QSet<QString> phases;
    qint64 downloadTotal = -1;
    QString session;
    for (const QJsonObject &p : std::as_const(streamed.progress)) {
        session = p.value(QStringLiteral("session")).toString();
        if (p.value(QStringLiteral("operation")).toString() == QLatin1String("open"))
            phases.insert(p.value(QStringLiteral("phase")).toString());
        if (p.value(QStringLiteral("phase")).toString() == QLatin1String("download"))
            downloadTotal = std::max(downloadTotal, p.value(QStringLiteral("totalBytes")).toInteger(-1));
    }
    QVERIFY2(phases.contains(QStringLiteral("download")) && phases.contains(QStringLiteral("checkout")),
        qPrintable(QStringList(phases.values()).join(QLatin1Char(','))));
    QVERIFY2(downloadTotal > kBigFile, qPrintable(QString::number(downloadTotal))); // the encrypted segment
    const QJsonObject result = QJsonDocument::fromJson(streamed.rest).object();
    QCOMPARE(result.value(QStringLiteral("id")).toString(), session);
    QCOMPARE(
        QFileInfo(result.value(QStringLiteral("worktree")).toString() + QStringLiteral("/big.bin")).size(), kBigFile);
    forget(session);

    // On a terminal: the download's figures on the line, then only the id and the worktree.
    const CliRun shown = m_fx->cliOnTerminal(
        0, {QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"), name}, 100);
    QVERIFY2(shown.exitCode == 0, qPrintable(shown.describe()));
    QList<QByteArray> lines = drawnLines(shown.out);
    QVERIFY2(lines.size() >= 2, shown.out.constData());
    const QByteArray last = lines.takeLast();
    QVERIFY2(QRegularExpression(QStringLiteral("^s[0-9a-f]{12}$")).match(QString::fromUtf8(last)).hasMatch(),
        shown.out.constData());
    bool downloading = false;
    for (const QByteArray &l : lines)
        downloading = downloading || (l.startsWith("Opening: downloading ") && l.contains(" MiB ("));
    QVERIFY2(downloading, shown.out.constData());
    forget(QString::fromUtf8(last));

    // The bundle: workspace.progress events as JSON lines, download then write, then the result.
    QTemporaryDir out;
    QVERIFY(out.isValid());
    const QString bundle = out.filePath(QStringLiteral("w.bundle"));
    const CliRun bundled = m_fx->cli(0,
        {QStringLiteral("workspace"), QStringLiteral("bundle"), name, bundle, QStringLiteral("--json"),
            QStringLiteral("--progress")});
    QVERIFY2(bundled.exitCode == 0, qPrintable(bundled.describe()));
    streamed = splitProgress(bundled.out);
    QVERIFY2(streamed.wellFormed, bundled.out.constData());
    QStringList exportPhases;
    downloadTotal = -1;
    for (const QJsonObject &p : std::as_const(streamed.progress)) {
        QCOMPARE(p.value(QStringLiteral("name")).toString(), name);
        const QString phase = p.value(QStringLiteral("phase")).toString();
        if (p.value(QStringLiteral("operation")).toString() == QLatin1String("bundle")
            && (exportPhases.isEmpty() || exportPhases.last() != phase))
            exportPhases.append(phase);
        if (phase == QLatin1String("download"))
            downloadTotal = std::max(downloadTotal, p.value(QStringLiteral("totalBytes")).toInteger(-1));
    }
    QVERIFY2(exportPhases.contains(QStringLiteral("download")) && exportPhases.endsWith(QStringLiteral("write"))
            && exportPhases.indexOf(QStringLiteral("download")) < exportPhases.indexOf(QStringLiteral("write")),
        qPrintable(exportPhases.join(QLatin1Char(','))));
    QVERIFY2(downloadTotal > kBigFile, qPrintable(QString::number(downloadTotal)));
    QCOMPARE(QJsonDocument::fromJson(streamed.rest).object().value(QStringLiteral("path")).toString(), bundle);
    QVERIFY(QFileInfo(bundle).size() > kBigFile);

    // The tree export on a terminal, from an empty warm cache again: the figures, then the result.
    QVERIFY(emptyCache(workspaceId));
    const QString tarball = out.filePath(QStringLiteral("w.tar.gz"));
    const CliRun exported
        = m_fx->cliOnTerminal(0, {QStringLiteral("workspace"), QStringLiteral("export"), name, tarball}, 100);
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.describe()));
    lines = drawnLines(exported.out);
    const QByteArray wrote = "Wrote " + tarball.toUtf8();
    QVERIFY2(lines.size() >= 2 && lines.takeLast().startsWith(wrote), exported.out.constData());
    bool exportDownload = false, writing = false;
    for (const QByteArray &l : lines) {
        exportDownload = exportDownload || (l.startsWith("Exporting: downloading ") && l.contains(" MiB ("));
        writing = writing || l.startsWith("Exporting: writing the file");
    }
    QVERIFY2(exportDownload && writing, exported.out.constData());
}

void tst_CliProgress::ctrlCCancelsTheSave()
{
    const QString ws = m_fx->createWorkspace(QStringLiteral("progress-cancel"));
    QVERIFY(!ws.isEmpty());
    const QJsonObject s = m_fx->newSession(0, QStringLiteral("progress-cancel"));
    QVERIFY(!s.isEmpty());
    const QString id = s.value(QStringLiteral("id")).toString();
    const QString work = s.value(QStringLiteral("worktree")).toString();
    const QString gitDir = QFileInfo(work).path() + QStringLiteral("/git");
    QVERIFY(GitCli::writeFile(work + QStringLiteral("/first.txt"), "first\n"));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("save"), id}).exitCode, 0);
    const QByteArray manifest = m_fx->hubManifest(ws);
    const QStringList segments = m_fx->hubSegments(ws);
    const QByteArray main = GitCli::inRepo(gitDir, {QStringLiteral("rev-parse"), QStringLiteral("main")}, work).out;
    QVERIFY(!main.isEmpty());

    // A save long enough to be caught: Ctrl-C (SIGINT) once its segment is being written.
    for (int i = 0; i < 3; ++i)
        QVERIFY(writeRandom(work + QStringLiteral("/big%1.bin").arg(i), kBigFile));
    cancelWithCtrlC({QStringLiteral("save"), id, QStringLiteral("--json"), QStringLiteral("--progress")},
        QStringLiteral("segment"));
    if (QTest::currentTestFailed())
        return;

    // Nothing reached the hub; main is back where it was; the work stays on the session branch;
    // nothing is left on its way.
    QCOMPARE(m_fx->hubManifest(ws), manifest);
    QTRY_COMPARE(m_fx->hubSegments(ws), segments);
    QCOMPARE(GitCli::inRepo(gitDir, {QStringLiteral("rev-parse"), QStringLiteral("main")}, work).out, main);
    QVERIFY(GitCli::inRepo(gitDir,
        {QStringLiteral("cat-file"), QStringLiteral("-e"),
            QStringLiteral("session/") + id + QStringLiteral(":big0.bin")},
        work)
                .ok());
    QTRY_VERIFY(QDir(m_fx->home(0) + QStringLiteral("/cache/tmp")).entryList(QDir::Files).isEmpty());

    // Nothing running: nothing to cancel. The same save again goes through.
    const CliRun again = m_fx->cli(0, {QStringLiteral("save"), id, QStringLiteral("--json")});
    QVERIFY2(again.exitCode == 0, qPrintable(again.describe()));
    QVERIFY(again.json().value(QStringLiteral("published")).toBool());
    QVERIFY(m_fx->hubManifest(ws) != manifest);
}

// Ctrl-C of a sync while it brings the hub's segments in (the warm cache emptied first, so there
// is something to download): exit 130, code cancelled, the session's branch and files as they
// were. The next sync goes through and brings the files.
void tst_CliProgress::ctrlCCancelsTheSync()
{
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("progress-sync-cancel")).isEmpty());
    const QJsonObject a = m_fx->newSession(0, QStringLiteral("progress-sync-cancel"));
    const QJsonObject b = m_fx->newSession(0, QStringLiteral("progress-sync-cancel"));
    QVERIFY(!a.isEmpty() && !b.isEmpty());
    const QString workA = a.value(QStringLiteral("worktree")).toString();
    const QString idB = b.value(QStringLiteral("id")).toString();
    const QString workB = b.value(QStringLiteral("worktree")).toString();
    const QString gitDirB = QFileInfo(workB).path() + QStringLiteral("/git");
    for (int i = 0; i < 3; ++i)
        QVERIFY(writeRandom(workA + QStringLiteral("/big%1.bin").arg(i), kBigFile));
    QCOMPARE(m_fx->cli(0, {QStringLiteral("save"), a.value(QStringLiteral("id")).toString()}).exitCode, 0);
    const CliRun cleared = m_fx->cli(0, {QStringLiteral("cache"), QStringLiteral("clear")});
    QVERIFY2(cleared.exitCode == 0, qPrintable(cleared.describe()));
    const QByteArray branch
        = GitCli::inRepo(gitDirB, {QStringLiteral("rev-parse"), QStringLiteral("session/") + idB}, workB).out;
    QVERIFY(!branch.isEmpty());

    cancelWithCtrlC({QStringLiteral("sync"), idB, QStringLiteral("--json"), QStringLiteral("--progress")},
        QStringLiteral("download"));
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(
        GitCli::inRepo(gitDirB, {QStringLiteral("rev-parse"), QStringLiteral("session/") + idB}, workB).out, branch);
    QVERIFY(!QFileInfo::exists(workB + QStringLiteral("/big0.bin")));

    const CliRun again = m_fx->cli(0, {QStringLiteral("sync"), idB, QStringLiteral("--json")});
    QVERIFY2(again.exitCode == 0,
        qPrintable(again.describe() + QStringLiteral("\nthe engine's log:\n") + m_fx->engineLog(0).right(8000)));
    QCOMPARE(QFileInfo(workB + QStringLiteral("/big0.bin")).size(), kBigFile);
}

// Ctrl-C of `session new` while it downloads the workspace from the hub (no session of it here,
// the warm cache emptied): exit 130, code cancelled, and nothing of the new session left, neither
// in the engine's list nor on the disk. The next `session new` goes through and has the files.
void tst_CliProgress::ctrlCCancelsTheRestore()
{
    const QString name = QStringLiteral("progress-restore-cancel");
    QString sessionsDir;
    saveOnlyOnTheHub(name, &sessionsDir);
    if (QTest::currentTestFailed())
        return;

    QByteArray printed;
    cancelWithCtrlC({QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"), name,
                        QStringLiteral("--json"), QStringLiteral("--progress")},
        QStringLiteral("download"), &printed);
    if (QTest::currentTestFailed())
        return;
    const Streamed streamed = splitProgress(printed);
    QVERIFY2(streamed.wellFormed && !streamed.progress.isEmpty(), printed.constData());
    const QString cancelled = streamed.progress.first().value(QStringLiteral("session")).toString();
    QVERIFY(!cancelled.isEmpty());
    const auto listed = [this] {
        QStringList ids;
        const QJsonObject list = m_fx->cli(0, {QStringLiteral("sessions"), QStringLiteral("--json")}).json();
        for (const QJsonValue v : list.value(QStringLiteral("sessions")).toArray())
            ids << v.toObject().value(QStringLiteral("id")).toString();
        return ids;
    };
    QVERIFY2(!listed().contains(cancelled), qPrintable(listed().join(QLatin1Char(' '))));
    QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(sessionsDir + QLatin1Char('/') + cancelled), 10000);

    const QJsonObject again = m_fx->newSession(0, name);
    QVERIFY(!again.isEmpty());
    QCOMPARE(
        QFileInfo(again.value(QStringLiteral("worktree")).toString() + QStringLiteral("/big2.bin")).size(), kBigFile);
}

// Ctrl-C of `workspace bundle` while it downloads the workspace (the warm cache emptied first):
// exit 130, code cancelled, and no file in the directory, not even in part. The same export again
// writes the bundle.
void tst_CliProgress::ctrlCCancelsAnExport()
{
    const QString name = QStringLiteral("progress-export-cancel");
    saveOnlyOnTheHub(name);
    if (QTest::currentTestFailed())
        return;

    QTemporaryDir out;
    QVERIFY(out.isValid());
    const QString bundle = out.filePath(QStringLiteral("w.bundle"));
    cancelWithCtrlC({QStringLiteral("workspace"), QStringLiteral("bundle"), name, bundle, QStringLiteral("--json"),
                        QStringLiteral("--progress")},
        QStringLiteral("download"));
    if (QTest::currentTestFailed())
        return;
    // A file being written when the Cancel came is dropped once its writer sees it.
    QTRY_COMPARE_WITH_TIMEOUT(QDir(out.path()).entryList(QDir::Files | QDir::Hidden), QStringList(), 30000);

    const CliRun again = m_fx->cli(0, {QStringLiteral("workspace"), QStringLiteral("bundle"), name, bundle});
    QVERIFY2(again.exitCode == 0, qPrintable(again.describe()));
    QVERIFY(QFileInfo(bundle).size() > 3 * kBigFile);
}

QTEST_GUILESS_MAIN(tst_CliProgress)
#include "tst_cliprogress.moc"
