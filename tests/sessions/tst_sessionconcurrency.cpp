// Many savers on one workspace: 2 real engine processes × 4 sessions × 4 saves each, all at once
// through the CLI, each syncing and saving again when the workspace moved on (exit 8). Every
// acknowledged save is reachable from the final main, none is lost, and the two engines, which
// both started on the empty workspace, share its root.
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace isolation::test;

namespace {

constexpr int kEngines = 2;
constexpr int kSessionsPerEngine = 4;
constexpr int kSaves = 4;
constexpr int kMaxAttempts = 60; // per save: a saver that never gets through fails the test

struct Saver
{
    int engine = 0;
    QString id;
    QString work;
    QString gitDir;
    int saved = 0; // acknowledged saves
    int attempts = 0; // of the current save
    int movedOn = 0; // 412s seen in all
    QList<QByteArray> acknowledged; // the session branch each acknowledged save published
    QStringList files; // written by acknowledged saves
    QString failure;
    bool done = false;
};

} // namespace

class tst_SessionConcurrency final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void eightSessionsTwoEnginesNoSaveLost();

private:
    void step(Saver &s);
    void run(Saver &s, const QStringList &args, std::function<void(int, QByteArray)> then);

    SessionFixture m_fx;
    int m_running = 0;
};

void tst_SessionConcurrency::run(Saver &s, const QStringList &args, std::function<void(int, QByteArray)> then)
{
    auto *p = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), m_fx.home(s.engine));
    p->setProcessEnvironment(env);
    ++m_running;
    connect(p, &QProcess::finished, this, [this, p, then](int code, QProcess::ExitStatus status) {
        --m_running;
        p->deleteLater();
        then(status == QProcess::NormalExit ? code : -1, p->readAllStandardOutput() + p->readAllStandardError());
    });
    p->start(serverBinary(), args);
}

void tst_SessionConcurrency::step(Saver &s)
{
    if (s.saved == kSaves) {
        s.done = true;
        return;
    }
    if (++s.attempts > kMaxAttempts) {
        s.failure = QStringLiteral("save %1 did not get through in %2 attempts").arg(s.saved).arg(kMaxAttempts);
        s.done = true;
        return;
    }
    const QString file = QStringLiteral("%1-%2.txt").arg(s.id).arg(s.saved);
    if (s.attempts == 1 && !GitCli::writeFile(s.work + '/' + file, file.toUtf8() + '\n')) {
        s.failure = QStringLiteral("cannot write ") + file;
        s.done = true;
        return;
    }
    run(s, {QStringLiteral("save"), s.id, QStringLiteral("-m"), file, QStringLiteral("--json")},
        [this, &s, file](int code, const QByteArray &out) {
            if (code == 0) {
                const QJsonObject r = QJsonDocument::fromJson(out.left(out.lastIndexOf('}') + 1)).object();
                s.acknowledged.append(r.value(QStringLiteral("commit")).toString().toLatin1());
                s.files.append(file);
                ++s.saved;
                s.attempts = 0;
                step(s);
                return;
            }
            if (code != 8) {
                s.failure = QStringLiteral("save exited %1: %2").arg(code).arg(QString::fromUtf8(out));
                s.done = true;
                return;
            }
            ++s.movedOn;
            run(s, {QStringLiteral("sync"), s.id}, [this, &s](int code, const QByteArray &out) {
                if (code != 0 && code != 8) { // 8: the sync itself raced with nothing to fear; retry
                    s.failure = QStringLiteral("sync exited %1: %2").arg(code).arg(QString::fromUtf8(out));
                    s.done = true;
                    return;
                }
                step(s);
            });
        });
}

void tst_SessionConcurrency::eightSessionsTwoEnginesNoSaveLost()
{
    QVERIFY(m_fx.start(kEngines));
    for (int e = 0; e < kEngines; ++e)
        QVERIFY(m_fx.startEngine(e));
    const QString ws = m_fx.createWorkspace(QStringLiteral("busy"));
    QVERIFY(!ws.isEmpty());

    // Every session starts on the empty workspace, before anyone saved.
    std::vector<Saver> savers;
    for (int e = 0; e < kEngines; ++e) {
        for (int i = 0; i < kSessionsPerEngine; ++i) {
            const QJsonObject o = m_fx.newSession(e, QStringLiteral("busy"));
            QVERIFY(!o.isEmpty());
            Saver s;
            s.engine = e;
            s.id = o.value(QStringLiteral("id")).toString();
            s.work = o.value(QStringLiteral("worktree")).toString();
            s.gitDir = QFileInfo(s.work).path() + QStringLiteral("/git");
            savers.push_back(s);
        }
    }
    // Two engines that started on the empty workspace share its root.
    const QByteArray root
        = GitCli::inRepo(savers.front().gitDir, {QStringLiteral("rev-parse"), QStringLiteral("main")}).out.trimmed();
    QVERIFY(!root.isEmpty());
    for (const Saver &s : savers)
        QCOMPARE(GitCli::inRepo(s.gitDir, {QStringLiteral("rev-parse"), QStringLiteral("main")}).out.trimmed(), root);

    QElapsedTimer timer;
    timer.start();
    for (Saver &s : savers)
        step(s);
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(savers.begin(), savers.end(), [](const Saver &s) { return s.done; }), 500000);
    QTRY_COMPARE_WITH_TIMEOUT(m_running, 0, 30000);
    int movedOn = 0;
    for (const Saver &s : savers) {
        QVERIFY2(s.failure.isEmpty(), qPrintable(s.id + QStringLiteral(": ") + s.failure));
        QCOMPARE(s.saved, kSaves);
        movedOn += s.movedOn;
    }
    qInfo() << kEngines * kSessionsPerEngine * kSaves << "saves in" << timer.elapsed() << "ms," << movedOn
            << "times moved on (412 or behind)";
    QVERIFY(movedOn > 0); // they did race

    // The final main, as a fresh session on each engine sees it.
    for (int e = 0; e < kEngines; ++e) {
        const QJsonObject o = m_fx.newSession(e, QStringLiteral("busy"));
        QVERIFY(!o.isEmpty());
        const QString work = o.value(QStringLiteral("worktree")).toString();
        const QString gitDir = QFileInfo(work).path() + QStringLiteral("/git");
        const GitRun fsck = GitCli::inRepo(gitDir, {QStringLiteral("fsck"), QStringLiteral("--no-progress")});
        QVERIFY2(fsck.ok(), qPrintable(fsck.describe()));
        QVERIFY(GitCli::inRepo(gitDir,
            {QStringLiteral("merge-base"), QStringLiteral("--is-ancestor"), QString::fromLatin1(root),
                QStringLiteral("main")})
                    .ok());
        for (const Saver &s : savers) {
            for (const QByteArray &commit : s.acknowledged) {
                const GitRun reach = GitCli::inRepo(gitDir,
                    {QStringLiteral("merge-base"), QStringLiteral("--is-ancestor"), QString::fromLatin1(commit),
                        QStringLiteral("main")});
                QVERIFY2(reach.ok(), qPrintable(QStringLiteral("%1 of %2 is not in main").arg(commit, s.id)));
            }
            for (const QString &f : s.files)
                QCOMPARE(GitCli::readFile(work + '/' + f), f.toUtf8() + '\n');
        }
    }
    for (int e = 0; e < kEngines; ++e)
        QCOMPARE(m_fx.stopEngine(e), 0);
}

QTEST_GUILESS_MAIN(tst_SessionConcurrency)
#include "tst_sessionconcurrency.moc"
