// `isolation-server bugreport` (issue 26): the report has its sections and none of the secrets it
// could have picked up. Canaries are put where a naive report would copy them from: the server's
// identity (credential, private keys, member key) from a real pairing with the real hub, a launch
// secret sealed by the hub and sent to the engine, a view token used through the hub and the
// engine's doorman (and the view cookie it answers), the settings file, the environment, and
// engine.log and its rotated file, with the shapes secrets have on the wire (Authorization
// headers, URLs with user info, tokens in queries and JSON). Then the report is scanned
// (tests/sandbox/canaryscan.h). Without an engine the report still has versions, settings and log.
#include "canaryscan.h"
#include "sessionfixture.h"

#include "crypto/random.h"
#include "pairing/serveridentity.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

#include <sys/stat.h>

using namespace isolation;
using namespace isolation::test;

namespace {

// A canary shaped like a token (base64url of 24 random bytes), fresh each run.
QByteArray tokenCanary()
{
    return randomBytes(24).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

// A canary that is a plain word (a password a person chose): only its place can give it away.
QByteArray wordCanary()
{
    return "canary" + randomBytes(6).toHex();
}

void append(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::Append));
    f.write(bytes);
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Log lines in the engine's format with secrets in every shape the wire gives them.
QByteArray logLinesWith(const QByteArray &token, const QByteArray &word, const QByteArray &marker)
{
    const QByteArray stamp = "2026-12-04T20:00:00.000Z debug isolation.hub: ";
    return stamp + marker + '\n' + stamp + "POST /v1/heartbeat Authorization: Bearer " + token + '\n' + stamp
        + "> authorization: Basic " + QByteArray("user:" + word).toBase64() + '\n' + stamp
        + "clone https://x-access-token:" + word + "@github.com/org/repo.git failed\n" + stamp
        + "GET /?view_token=" + token + " 302\n" + stamp + "request body {\"credential\":\"" + word + "\"}\n" + stamp
        + "Cookie: __Host-isolation_view=" + token + '\n' + stamp + "environment GITHUB_TOKEN=" + word + '\n';
}

struct RawAnswer
{
    int status = 0;
    QByteArray head;
};

// One request on the hub's preview port with the Host a browser would send for a view URL.
RawAnswer previewGet(const QUrl &url, quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    if (!socket.waitForConnected(5000))
        return {};
    socket.write("GET " + url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority) + " HTTP/1.1\r\nHost: "
        + url.host().toLatin1() + ':' + QByteArray::number(port) + "\r\nConnection: close\r\n\r\n");
    QByteArray raw;
    QDeadlineTimer deadline(20000);
    while (!raw.contains("\r\n\r\n") && !deadline.hasExpired() && socket.state() == QAbstractSocket::ConnectedState) {
        socket.waitForReadyRead(100);
        raw += socket.readAll();
    }
    RawAnswer a;
    a.head = raw.left(raw.indexOf("\r\n\r\n"));
    a.status = a.head.mid(9, 3).toInt();
    return a;
}

} // namespace

class tst_BugReport final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void withoutAnEngine();
    void longLogTail();
    void pairedEngineWithSecrets();

private:
    // Checks what every report has, and that it holds none of `canaries`; returns the report.
    QByteArray checkReport(const QString &path, const QList<QByteArray> &canaries);
};

QByteArray tst_BugReport::checkReport(const QString &path, const QList<QByteArray> &canaries)
{
    struct stat st
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0) {
        qWarning("no report at %s", qPrintable(path));
        return {};
    }
    if ((st.st_mode & 0777) != 0600) {
        qWarning("the report is mode %o", st.st_mode & 0777);
        return {};
    }
    const QByteArray report = readAll(path);
    for (const char *section :
        {"== Versions ==", "isolation-server:", "Qt:", "libgit2:", "OpenSSL:", "Docker engine:", "== Engine ==",
            "== Settings ==", "== Environment ==", "== Paths ==", "== engine.log (the last 2000 lines) =="}) {
        if (!report.contains(section)) {
            qWarning("the report has no \"%s\":\n%s", section, report.constData());
            return {};
        }
    }
    const CanaryScan scan(canaries);
    if (scan.holds(report)) {
        for (const QByteArray &c : canaries) {
            if (CanaryScan({c}).holds(report))
                qWarning("the report holds the canary %s", c.toBase64().constData());
        }
        qWarning("%s", report.constData());
        return {};
    }
    return report;
}

// No engine runs: versions, settings (a password in them removed), the environment and the log,
// from the current file and the rotated one, with the secrets in its lines removed.
void tst_BugReport::withoutAnEngine()
{
    QTemporaryDir dir;
    const QString home = dir.filePath(QStringLiteral("home"));
    QVERIFY(QDir().mkpath(home + QStringLiteral("/state")));
    QVERIFY(QDir().mkpath(home + QStringLiteral("/config")));
    const QByteArray token = tokenCanary();
    const QByteArray word = wordCanary();
    const QByteArray settingsWord = wordCanary();
    const QByteArray envWord = wordCanary();
    append(home + QStringLiteral("/config/settings.ini"),
        "[cache]\nmaxBytes=1000000\n[proxy]\npassword=" + settingsWord + "\nurl=http://me:" + settingsWord
            + "@proxy.example:3128\n");
    append(home + QStringLiteral("/state/engine.log.1"), logLinesWith(token, word, "marker-of-the-rotated-file"));
    append(home + QStringLiteral("/state/engine.log"), logLinesWith(token, word, "marker-of-the-current-file"));

    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    env.insert(QStringLiteral("ISOLATION_TEST_API_KEY"), QString::fromLatin1(envWord));
    env.insert(QStringLiteral("ISOLATION_HUB_URL"),
        QStringLiteral("http://member:%1@127.0.0.1:1/").arg(QString::fromLatin1(envWord)));
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(dir.path());
    p.start(serverBinary(), {QStringLiteral("bugreport")});
    QVERIFY(p.waitForFinished(60000));
    const QByteArray out = p.readAllStandardOutput();
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    // The default name, in the current directory, said on stdout.
    const QStringList written = QDir(dir.path()).entryList({QStringLiteral("isolation-bugreport-*.txt")}, QDir::Files);
    QCOMPARE(written.size(), 1);
    const QString path = dir.filePath(written.first());
    QVERIFY2(out.contains(path.toUtf8()), out.constData());
    QVERIFY2(out.contains("the engine was not reachable"), out.constData());

    const QByteArray report = checkReport(path, {token, word, settingsWord, envWord});
    QVERIFY(!report.isEmpty());
    QVERIFY(report.contains("The engine was not reachable"));
    QVERIFY(report.contains("cache/maxBytes = 1000000"));
    QVERIFY(report.contains("proxy/password = [redacted]"));
    QVERIFY(report.contains("url = http://[redacted]@proxy.example:3128"));
    QVERIFY(report.contains("ISOLATION_TEST_API_KEY=[redacted]"));
    QVERIFY(report.contains("ISOLATION_HUB_URL=http://[redacted]@127.0.0.1:1/"));
    QVERIFY(report.contains("(from engine.log.1, engine.log)"));
    QVERIFY(report.indexOf("marker-of-the-rotated-file") < report.indexOf("marker-of-the-current-file"));
    QVERIFY(report.indexOf("marker-of-the-rotated-file") > 0);
    QVERIFY(report.contains("Authorization: Bearer [redacted]") || report.contains("Authorization: [redacted]"));

    // --lines bounds the log: the newest lines only.
    QProcess few;
    few.setProcessEnvironment(env);
    few.start(serverBinary(),
        {QStringLiteral("bugreport"), QStringLiteral("--lines"), QStringLiteral("3"), QStringLiteral("--output"),
            dir.filePath(QStringLiteral("few.txt")), QStringLiteral("--json")});
    QVERIFY(few.waitForFinished(60000));
    QCOMPARE(few.exitCode(), 0);
    const QJsonObject json = QJsonDocument::fromJson(few.readAllStandardOutput()).object();
    QCOMPARE(json.value(QStringLiteral("path")).toString(), dir.filePath(QStringLiteral("few.txt")));
    QCOMPARE(json.value(QStringLiteral("engineReachable")).toBool(), false);
    const QByteArray fewReport = readAll(dir.filePath(QStringLiteral("few.txt")));
    QVERIFY(fewReport.contains("(from engine.log)"));
    QVERIFY(!fewReport.contains("marker-of-the-current-file"));
    QVERIFY(!fewReport.contains("marker-of-the-rotated-file"));

    // A bad command line is exit code 2.
    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(serverBinary(), {QStringLiteral("bugreport"), QStringLiteral("--lines"), QStringLiteral("many")});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
}

// The tail of a log longer than the chunks it is read in (256 KiB), across the current file and a
// rotated one: exactly the newest lines, each whole, in order.
void tst_BugReport::longLogTail()
{
    QTemporaryDir dir;
    const QString home = dir.filePath(QStringLiteral("home"));
    QVERIFY(QDir().mkpath(home + QStringLiteral("/state")));
    const auto lines = [](int from, int to) {
        QByteArray bytes;
        for (int i = from; i < to; ++i)
            bytes += "2026-12-04T20:00:00.000Z info isolation.test: line " + QByteArray::number(i) + " end\n";
        return bytes;
    };
    append(home + QStringLiteral("/state/engine.log.1"), lines(0, 20000)); // ~1 MiB
    append(home + QStringLiteral("/state/engine.log"), lines(20000, 30000));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    p.setProcessEnvironment(env);
    const QString path = dir.filePath(QStringLiteral("r.txt"));
    p.start(serverBinary(),
        {QStringLiteral("bugreport"), QStringLiteral("--lines"), QStringLiteral("15000"), QStringLiteral("--output"),
            path});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QByteArray report = readAll(path);
    const qsizetype start
        = report.indexOf("== engine.log (the last 15000 lines) ==\n(from engine.log.1, engine.log)\n");
    QVERIFY(start >= 0);
    const QByteArray expected = lines(15000, 30000);
    QCOMPARE(report.mid(report.indexOf('\n', report.indexOf('\n', start) + 1) + 1, expected.size()), expected);
}

// A paired engine that holds secrets: the report has its state and none of them.
void tst_BugReport::pairedEngineWithSecrets()
{
    SessionFixture fx;
    QVERIFY(fx.start(1));
    const QString home = fx.home(0);
    // The identity the pairing stored: every secret of it is a canary.
    auto identity = ServerIdentity::fromBlob(readAll(home + QStringLiteral("/data/credentials.json")));
    QVERIFY(identity);
    QList<QByteArray> canaries {identity.value().credential.view().toByteArray(),
        identity.value().ed25519Private.view().toByteArray(), identity.value().x25519Private.view().toByteArray(),
        identity.value().memberKey.view().toByteArray()};
    for (const QByteArray &c : std::as_const(canaries))
        QVERIFY(c.size() >= 16);

    // The log before this start, rotated as the engine rotates it, with secrets in it.
    const QByteArray logToken = tokenCanary();
    const QByteArray logWord = wordCanary();
    canaries << logToken << logWord;
    append(home + QStringLiteral("/state/engine.log.1"), logLinesWith(logToken, logWord, "marker-before-the-start"));
    const QByteArray settingsWord = wordCanary();
    canaries << settingsWord;
    append(home + QStringLiteral("/config/settings.ini"), "\n[proxy]\npassword=" + settingsWord + '\n');

    QVERIFY(fx.startEngine(0));
    const QString workspace = fx.createWorkspace(QStringLiteral("reported"));
    QVERIFY(!workspace.isEmpty());
    const QJsonObject session = fx.newSession(0, QStringLiteral("reported"));
    const QString sessionId = session.value(QStringLiteral("id")).toString();
    QVERIFY(!sessionId.isEmpty());
    const CliRun status = fx.cli(0, {QStringLiteral("status"), QStringLiteral("--json")});
    const QString serverId = status.json().value(QStringLiteral("serverId")).toString();
    QVERIFY(!serverId.isEmpty());

    // A launch secret, sealed by the hub to this server and opened into the engine's vault (the
    // launch itself is refused after that: the runtime is off in tests).
    const QByteArray launchSecret = "sk-" + tokenCanary();
    canaries << launchSecret;
    qputenv("BUGREPORT_LAUNCH_SECRET", launchSecret);
    QString launchOut;
    QString launchErr;
    const int launchRc = fx.hub().admin(
        {QStringLiteral("launch"), QStringLiteral("--server"), serverId, QStringLiteral("--workspace"),
            QStringLiteral("reported"), QStringLiteral("--secret"), QStringLiteral("BUGREPORT_LAUNCH_SECRET")},
        &launchOut, &launchErr);
    qunsetenv("BUGREPORT_LAUNCH_SECRET");
    qInfo() << "launch (runtime off):" << launchRc << launchOut.trimmed() << launchErr.trimmed();
    QVERIFY2(
        readAll(home + QStringLiteral("/state/engine.log")).contains("1 launch secrets held (BUGREPORT_LAUNCH_SECRET)"),
        qPrintable(fx.engineLog(0).right(3000)));

    // A view token, used through the hub's preview origin and the engine's doorman: the engine
    // sees it and answers with a view cookie.
    QString viewOut;
    QCOMPARE(fx.hub().admin({QStringLiteral("view"), sessionId, QStringLiteral("--kind"), QStringLiteral("terminal"),
                                QStringLiteral("--server"), serverId},
                 &viewOut),
        0);
    const QUrl view(viewOut.trimmed());
    const QByteArray viewToken = QUrlQuery(view).queryItemValue(QStringLiteral("view_token")).toLatin1();
    QVERIFY2(viewToken.size() > 40, qPrintable(viewOut));
    canaries << viewToken;
    const RawAnswer opened = previewGet(view, quint16(fx.hub().previewUrl().port()));
    qInfo() << "view opened:" << opened.status;
    QVERIFY(opened.status > 0);
    for (const QByteArray &line : opened.head.split('\n')) {
        if (line.toLower().startsWith("set-cookie: __host-isolation_view=")) {
            const QByteArray cookie = line.mid(line.indexOf('=') + 1);
            canaries << cookie.left(cookie.indexOf(';'));
        }
    }

    qInfo() << canaries.size() << "canaries";
    // Where a naive report would find them: the canaries written to the log are in it.
    const QByteArray logs
        = readAll(home + QStringLiteral("/state/engine.log.1")) + readAll(home + QStringLiteral("/state/engine.log"));
    QVERIFY(CanaryScan({logToken}).holds(logs) && CanaryScan({logWord}).holds(logs));
    QVERIFY(logs.contains("marker-before-the-start"));

    // The report, with more secrets in the environment it is written in.
    const QByteArray envToken = tokenCanary();
    canaries << envToken;
    qputenv("ISOLATION_TEST_ACCESS_TOKEN", envToken);
    const QString path = fx.dir() + QStringLiteral("/report.txt");
    const CliRun run = fx.cli(0, {QStringLiteral("bugreport"), QStringLiteral("--output"), path});
    qunsetenv("ISOLATION_TEST_ACCESS_TOKEN");
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QVERIFY2(run.out.contains(path.toUtf8()), run.out.constData());
    QVERIFY2(!run.out.contains("not reachable"), run.out.constData());

    const QByteArray report = checkReport(path, canaries);
    QVERIFY(!report.isEmpty());
    const auto field = [](const char *name, const QString &value) {
        return QStringLiteral("%1 %2").arg(QLatin1String(name), -18).arg(value).toUtf8();
    };
    for (const QByteArray &expected :
        {QByteArray("== Runtime =="), QByteArray("== Sessions =="), QByteArray("== Warm cache =="),
            QByteArray("== Engine snapshot (GET /v1/snapshot) =="), field("Paired:", QStringLiteral("yes")),
            field("State:", QStringLiteral("online")), field("Server:", serverId), sessionId.toUtf8(),
            field("Hub:", fx.hub().appUrl().toString()), QByteArray("workspace reported"),
            QByteArray("proxy/password = [redacted]"), QByteArray("ISOLATION_TEST_ACCESS_TOKEN=[redacted]"),
            QByteArray("marker-before-the-start"), QByteArray("(from engine.log.1, engine.log)")}) {
        QVERIFY2(report.contains(expected),
            qPrintable(QString::fromUtf8(expected) + QStringLiteral("\n") + QString::fromUtf8(report)));
    }
    QVERIFY2(fx.stopEngine(0) == 0, qPrintable(fx.engineLog(0).right(4000)));
}

QTEST_GUILESS_MAIN(tst_BugReport)
#include "tst_bugreport.moc"
