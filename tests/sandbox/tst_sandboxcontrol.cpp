// The control directory a sandbox asks the engine through (SandboxControl), without a sandbox: the
// real `save` script run by /bin/sh against it, and what an untrusted sandbox could put there — a
// link to a host file as a request or in place of an answer, a FIFO, an oversized request, a flood
// of requests — each refused without reading, blocking on or writing through anything.
#include "sandbox/sandboxcontrol.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace isolation;

namespace {

bool write(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray read(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class tst_SandboxControl final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void theScriptAsksAndReadsTheAnswer_data();
    void theScriptAsksAndReadsTheAnswer();
    void aRequestLeftBeforeStartIsTaken();
    void aLinkIsNeitherReadNorWrittenThrough();
    void aFifoDoesNotBlock();
    void anOversizedRequestIsRefused();
    void aFloodIsBounded();
    void controlCharactersLeaveTheMessage();
    void theSyncScriptAsksAndReadsTheAnswer_data();
    void theSyncScriptAsksAndReadsTheAnswer();

private:
    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_dir;
};

void tst_SandboxControl::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
    m_dir = m_tmp->path() + QStringLiteral("/control");
}

void tst_SandboxControl::cleanup()
{
    m_tmp.reset();
}

void tst_SandboxControl::theScriptAsksAndReadsTheAnswer_data()
{
    QTest::addColumn<int>("outcome");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("printed");
    QTest::newRow("saved") << int(SandboxControl::Outcome::Saved) << 0 << QByteArray("saved s-1\n");
    QTest::newRow("unchanged") << int(SandboxControl::Outcome::Unchanged) << 0 << QByteArray("unchanged s-1\n");
    QTest::newRow("moved on") << int(SandboxControl::Outcome::MovedOn) << 3 << QByteArray("moved-on s-1\n");
    QTest::newRow("refused") << int(SandboxControl::Outcome::Refused) << 4 << QByteArray("refused s-1\n");
    QTest::newRow("failed") << int(SandboxControl::Outcome::Failed) << 1 << QByteArray("failed s-1\n");
}

void tst_SandboxControl::theScriptAsksAndReadsTheAnswer()
{
    QFETCH(int, outcome);
    QFETCH(int, status);
    QFETCH(QByteArray, printed);
    SandboxControl control(m_dir);
    QString why;
    QVERIFY2(control.start(&why), qPrintable(why));
    const QFileInfo script(m_dir + QStringLiteral("/save"));
    QVERIFY(script.isFile() && script.isExecutable());

    QString message;
    QString id;
    connect(&control, &SandboxControl::saveRequested, this, [&](const QString &requestId, const QString &text) {
        id = requestId;
        message = text;
        control.answer(requestId, SandboxControl::Outcome(outcome), QStringLiteral("s-1"));
    });
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {script.filePath(), QStringLiteral("fix the"), QStringLiteral("tests")});
    QVERIFY(sh.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(sh.state() == QProcess::NotRunning, 20000);
    QCOMPARE(message, QStringLiteral("fix the tests"));
    QCOMPARE(sh.exitCode(), status);
    QCOMPARE(sh.readAllStandardOutput(), printed);
    QCOMPARE(control.outstanding(), 0);
    // The script took its answer away; the request was taken when read.
    QCOMPARE(QDir(m_dir).entryList(QDir::Files | QDir::Hidden | QDir::System),
        (QStringList {QStringLiteral("save"), QStringLiteral("sync")}));
    QVERIFY(!id.isEmpty());
}

void tst_SandboxControl::aRequestLeftBeforeStartIsTaken()
{
    QVERIFY(QDir().mkpath(m_dir));
    QVERIFY(write(m_dir + QStringLiteral("/early.save"), "asked while the engine restarted"));
    SandboxControl control(m_dir);
    QSignalSpy asked(&control, &SandboxControl::saveRequested);
    QVERIFY(control.start());
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked.at(0).at(0).toString(), QStringLiteral("early"));
    QCOMPARE(asked.at(0).at(1).toString(), QStringLiteral("asked while the engine restarted"));
    QCOMPARE(control.outstanding(), 1);
    control.answer(QStringLiteral("early"), SandboxControl::Outcome::Saved, QStringLiteral("abc"));
    QCOMPARE(read(m_dir + QStringLiteral("/early.done")), QByteArray("saved abc\n"));
}

void tst_SandboxControl::aLinkIsNeitherReadNorWrittenThrough()
{
    const QString secret = m_tmp->path() + QStringLiteral("/host-file");
    QVERIFY(write(secret, "a host file the sandbox must not read\n"));
    SandboxControl control(m_dir);
    QSignalSpy asked(&control, &SandboxControl::saveRequested);
    QVERIFY(control.start());
    // A request that is a link to a host file: refused, not read.
    QVERIFY(QFile::link(secret, m_dir + QStringLiteral("/peek.save")));
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(m_dir + QStringLiteral("/peek.done")), 5000);
    QVERIFY(asked.isEmpty());
    QVERIFY(read(m_dir + QStringLiteral("/peek.done")).startsWith("refused "));
    // An answer's place taken by a link to a host file: the link is replaced, the file untouched.
    QVERIFY(QFile::link(secret, m_dir + QStringLiteral("/aim.done")));
    QVERIFY(write(m_dir + QStringLiteral("/aim.save"), "x"));
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), 1, 5000);
    control.answer(QStringLiteral("aim"), SandboxControl::Outcome::Saved, QStringLiteral("abc"));
    QCOMPARE(read(secret), QByteArray("a host file the sandbox must not read\n"));
    QVERIFY(!QFileInfo(m_dir + QStringLiteral("/aim.done")).isSymLink());
    QCOMPARE(read(m_dir + QStringLiteral("/aim.done")), QByteArray("saved abc\n"));
    // The script's own place too: rewritten at start, over a link.
    QVERIFY(QFile::remove(m_dir + QStringLiteral("/save")));
    QVERIFY(QFile::link(secret, m_dir + QStringLiteral("/save")));
    SandboxControl again(m_dir);
    QVERIFY(again.start());
    QCOMPARE(read(secret), QByteArray("a host file the sandbox must not read\n"));
    QVERIFY(!QFileInfo(m_dir + QStringLiteral("/save")).isSymLink());
}

void tst_SandboxControl::aFifoDoesNotBlock()
{
    SandboxControl control(m_dir);
    QSignalSpy asked(&control, &SandboxControl::saveRequested);
    QVERIFY(control.start());
    QCOMPARE(::mkfifo(QFile::encodeName(m_dir + QStringLiteral("/pipe.save")).constData(), 0644), 0);
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(m_dir + QStringLiteral("/pipe.done")), 5000);
    QVERIFY(read(m_dir + QStringLiteral("/pipe.done")).startsWith("refused "));
    QVERIFY(asked.isEmpty());
}

void tst_SandboxControl::anOversizedRequestIsRefused()
{
    SandboxControl control(m_dir);
    QSignalSpy asked(&control, &SandboxControl::saveRequested);
    QVERIFY(control.start());
    QVERIFY(write(m_dir + QStringLiteral("/big.save"), QByteArray(SandboxControl::kMaxRequestBytes + 1, 'x')));
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(m_dir + QStringLiteral("/big.done")), 5000);
    QVERIFY(read(m_dir + QStringLiteral("/big.done")).startsWith("refused "));
    QVERIFY(asked.isEmpty());
    // Exactly the limit is taken.
    QVERIFY(write(m_dir + QStringLiteral("/fits.save"), QByteArray(SandboxControl::kMaxRequestBytes, 'y')));
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), 1, 5000);
    QCOMPARE(asked.at(0).at(1).toString().size(), 1000); // the message is cut, the request taken
}

void tst_SandboxControl::aFloodIsBounded()
{
    SandboxControl control(m_dir);
    QSignalSpy asked(&control, &SandboxControl::saveRequested);
    QVERIFY(control.start());
    const int sent = SandboxControl::kMaxOutstanding + 4;
    for (int i = 0; i < sent; ++i)
        QVERIFY(write(m_dir + QStringLiteral("/r%1.save").arg(i, 2, 10, QLatin1Char('0')), "x"));
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), SandboxControl::kMaxOutstanding, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(QDir(m_dir).entryList({QStringLiteral("*.done")}, QDir::Files).size(), 4, 5000);
    QCOMPARE(control.outstanding(), SandboxControl::kMaxOutstanding);
    QVERIFY(QDir(m_dir).entryList({QStringLiteral("*.save")}, QDir::Files).isEmpty());
    // Answered, the room is back.
    control.answer(asked.at(0).at(0).toString(), SandboxControl::Outcome::Saved, QStringLiteral("a"));
    QVERIFY(write(m_dir + QStringLiteral("/later.save"), "x"));
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), SandboxControl::kMaxOutstanding + 1, 5000);
    // Names outside the pattern are not requests.
    QVERIFY(write(m_dir + QStringLiteral("/..save"), "x"));
    QVERIFY(write(m_dir + QStringLiteral("/a b.save"), "x"));
    QTest::qWait(300);
    QCOMPARE(asked.size(), SandboxControl::kMaxOutstanding + 1);
}

void tst_SandboxControl::controlCharactersLeaveTheMessage()
{
    SandboxControl control(m_dir);
    QSignalSpy asked(&control, &SandboxControl::saveRequested);
    QVERIFY(control.start());
    QVERIFY(write(m_dir + QStringLiteral("/m.save"), "line one\nline\x1b[31m two\r\n"));
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), 1, 5000);
    QCOMPARE(asked.at(0).at(1).toString(), QStringLiteral("line one line [31m two"));
    control.answer(QStringLiteral("m"), SandboxControl::Outcome::Failed, QStringLiteral("two\nlines"));
    QCOMPARE(read(m_dir + QStringLiteral("/m.done")), QByteArray("failed two lines\n"));
}

void tst_SandboxControl::theSyncScriptAsksAndReadsTheAnswer_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("outcome");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("resolve");
    QTest::newRow("synced") << QStringList {} << int(SandboxControl::Outcome::Synced) << 0 << false;
    QTest::newRow("conflict") << QStringList {} << int(SandboxControl::Outcome::Conflict) << 5 << false;
    QTest::newRow("resolve") << QStringList {QStringLiteral("--resolve")} << int(SandboxControl::Outcome::Conflict) << 5 << true;
    QTest::newRow("failed") << QStringList {} << int(SandboxControl::Outcome::Failed) << 1 << false;
    // Anything but --resolve is refused by the engine before a sync is asked for.
    QTest::newRow("unknown option") << QStringList {QStringLiteral("--force")} << -1 << 4 << false;
}

void tst_SandboxControl::theSyncScriptAsksAndReadsTheAnswer()
{
    QFETCH(QStringList, args);
    QFETCH(int, outcome);
    QFETCH(int, status);
    QFETCH(bool, resolve);
    SandboxControl control(m_dir);
    QString why;
    QVERIFY2(control.start(&why), qPrintable(why));
    const QFileInfo script(m_dir + QStringLiteral("/sync"));
    QVERIFY(script.isFile() && script.isExecutable());
    int asked = 0;
    bool askedResolve = false;
    connect(&control, &SandboxControl::syncRequested, this, [&](const QString &requestId, bool r) {
        ++asked;
        askedResolve = r;
        control.answer(requestId, SandboxControl::Outcome(outcome), QStringLiteral("a.txt"));
    });
    QSignalSpy saves(&control, &SandboxControl::saveRequested);
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), QStringList {script.filePath()} + args);
    QVERIFY(sh.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(sh.state() == QProcess::NotRunning, 20000);
    QCOMPARE(sh.exitCode(), status);
    QCOMPARE(asked, outcome < 0 ? 0 : 1);
    QCOMPARE(askedResolve, resolve);
    QCOMPARE(saves.count(), 0);
    if (outcome >= 0)
        QCOMPARE(sh.readAllStandardOutput(), SandboxControl::outcomeWord(SandboxControl::Outcome(outcome)).toUtf8() + " a.txt\n");
    QCOMPARE(control.outstanding(), 0);
}

QTEST_GUILESS_MAIN(tst_SandboxControl)
#include "tst_sandboxcontrol.moc"
