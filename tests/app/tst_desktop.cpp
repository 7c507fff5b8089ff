// The real isolation-tray on a real (virtual) desktop: Xvfb, a system tray host (trayer), a
// notification daemon (dunst), a session bus with an unlocked gnome-keyring, and the real hub.
// The tray and the engine are two processes (issue 21): with none running the tray starts the
// engine (`isolation-server up`, a process of its own, none of whose code is in the tray), the
// icon sits in the tray, pairing keeps the credentials in the keychain, and when the hub revokes
// the computer a notification reaches the desktop; clicking it opens the window. Quitting the
// tray leaves the engine running. Everything checked holds for a normal user (no /proc/PID/maps:
// both programs are not dumpable, so only root could read them).
// Screenshots land in ISOLATION_TEST_OUTPUT/screenshots/.
#include "desktopsession.h"
#include "hubprocess.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace isolation::test;

class tst_Desktop final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void trayHoldsNoEngineCode();
    void trayPairsAndNotifiesWhenRevoked();

private:
    QByteArray cli(const QStringList &args, int *exitCode = nullptr);
    QStringList visibleWindows(const QString &name) const;
    void shot(const QString &name);

    DesktopSession m_desktop;
    std::unique_ptr<HubProcess> m_hub;
    QTemporaryDir m_home;
    QProcessEnvironment m_env;
    QString m_shots;
    qint64 m_enginePid = 0; // the engine the tray started: stopped at the end
};

void tst_Desktop::initTestCase()
{
    QString error;
    QVERIFY2(m_desktop.start(DesktopSession::Everything, &error), qPrintable(error));
    m_hub = std::make_unique<HubProcess>();
    QVERIFY(m_hub->start({},
        {QStringLiteral("--poll-interval"), QStringLiteral("1"), QStringLiteral("--heartbeat-interval"),
            QStringLiteral("1")}));
    m_env = m_desktop.environment();
    m_env.insert(QStringLiteral("ISOLATION_HOME"), m_home.path());
    m_env.insert(QStringLiteral("ISOLATION_HUB_URL"), m_hub->appUrl().toString());
    m_env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    m_env.remove(QStringLiteral("LANGUAGE"));
    m_shots = qEnvironmentVariable("ISOLATION_TEST_OUTPUT", QDir::tempPath() + QStringLiteral("/isolation-test-output"))
        + QStringLiteral("/screenshots");
    QVERIFY(QDir().mkpath(m_shots));
}

void tst_Desktop::cleanupTestCase()
{
    if (m_enginePid > 0 && ::kill(pid_t(m_enginePid), SIGTERM) == 0) {
        QDeadlineTimer deadline(15000);
        while (::kill(pid_t(m_enginePid), 0) == 0 && !deadline.hasExpired())
            QTest::qWait(50);
        if (::kill(pid_t(m_enginePid), 0) == 0)
            ::kill(pid_t(m_enginePid), SIGKILL);
    }
    m_hub.reset();
    m_desktop.stop();
}

QByteArray tst_Desktop::cli(const QStringList &args, int *exitCode)
{
    QProcess p;
    p.setProcessEnvironment(m_env);
    p.start(serverBinary(), args);
    p.waitForFinished(30000);
    if (exitCode)
        *exitCode = p.exitCode();
    return p.readAllStandardOutput();
}

QStringList tst_Desktop::visibleWindows(const QString &name) const
{
    const QByteArray out = m_desktop.run(QStringLiteral("xdotool"),
        {QStringLiteral("search"), QStringLiteral("--onlyvisible"), QStringLiteral("--name"), name});
    return QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

void tst_Desktop::shot(const QString &name)
{
    const QString path = m_shots + QLatin1Char('/') + name + QStringLiteral(".png");
    QVERIFY2(m_desktop.screenshot(path), qPrintable(path));
    qInfo().noquote() << "screenshot:" << path;
}

// Statically, from the binaries' symbols (what the tray runs is its binary: no engine class is
// in it), with the engine program's binary as the control that these names are the engine's.
void tst_Desktop::trayHoldsNoEngineCode()
{
    const QStringList engineClasses {QStringLiteral("isolation::Engine::"), QStringLiteral("isolation::SessionManager::"),
        QStringLiteral("isolation::TunnelClient::"), QStringLiteral("isolation::RuntimeManager::"),
        QStringLiteral("isolation::Workspace::"), QStringLiteral("isolation::LocalApiServer::")};
    auto symbols = [](const QString &binary) {
        QProcess nm;
        nm.start(QStringLiteral("nm"), {QStringLiteral("-C"), binary});
        nm.waitForFinished(60000);
        return QString::fromUtf8(nm.readAllStandardOutput());
    };
    const QString tray = symbols(trayBinary());
    const QString server = symbols(engineBinary());
    // Not stripped (else the absence below would say nothing): the tray's own classes are there.
    QVERIFY2(tray.contains(QStringLiteral("isolation::TrayApplication::")), "no symbols in the tray binary");
    QVERIFY2(tray.contains(QStringLiteral("isolation::EngineConnection::")), "no symbols in the tray binary");
    for (const QString &c : engineClasses) {
        QVERIFY2(server.contains(c), qPrintable(QStringLiteral("the engine has no %1 (control)").arg(c)));
        QVERIFY2(!tray.contains(c), qPrintable(QStringLiteral("the tray carries engine code: %1").arg(c)));
    }
    // Nor the engine's libraries: the keychain's (libsecret stays in isolation-keychain), git,
    // HTTP/2, archives. (libcurl is opened at run time by both: the tray's LocalAPI calls use it.)
    QProcess readelf;
    readelf.start(QStringLiteral("readelf"), {QStringLiteral("-d"), trayBinary()});
    QVERIFY(readelf.waitForFinished(30000));
    const QByteArray needed = readelf.readAllStandardOutput();
    QVERIFY2(needed.contains("libQt6Widgets"), needed.constData()); // control: NEEDED entries read
    for (const char *lib : {"libsecret", "libgit2", "libnghttp2", "libarchive", "libcurl", "libssl"})
        QVERIFY2(!needed.contains(lib), lib);
}

void tst_Desktop::trayPairsAndNotifiesWhenRevoked()
{
    QProcess tray;
    tray.setProcessEnvironment(m_env);
    tray.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    tray.start(trayBinary(), {});
    QVERIFY(tray.waitForStarted());

    // No engine ran: the tray started one, a process of its own (its own pid, its own session,
    // not the tray's child), and the icon went into the tray host: the window stays hidden (it
    // is what the tray shows when no tray host exists).
    int rc = -1;
    QTRY_VERIFY_WITH_TIMEOUT((cli({QStringLiteral("status")}, &rc), rc == 0), 40000);
    m_enginePid = QJsonDocument::fromJson(cli({QStringLiteral("status"), QStringLiteral("--json")}))
                      .object()
                      .value(QStringLiteral("pid"))
                      .toInteger();
    QVERIFY(m_enginePid > 0);
    QVERIFY(m_enginePid != tray.processId());
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(m_enginePid));
    QVERIFY(cmdline.open(QIODevice::ReadOnly));
    const QList<QByteArray> engineArgs = cmdline.readAll().split('\0');
    QVERIFY2(engineArgs.value(0).endsWith("isolation-server") && engineArgs.value(1) == "up",
        engineArgs.join(' ').constData());
    QVERIFY(::getsid(pid_t(m_enginePid)) != ::getsid(pid_t(tray.processId())));
    QVERIFY(::kill(pid_t(tray.processId()), 0) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(!m_desktop
                                  .run(QStringLiteral("xdotool"),
                                      {QStringLiteral("search"), QStringLiteral("--classname"),
                                          QStringLiteral("isolation-tray")})
                                  .trimmed()
                                  .isEmpty(),
        10000);
    QVERIFY(visibleWindows(QStringLiteral("^Isolation$")).isEmpty());
    shot(QStringLiteral("desktop-tray-not-paired"));

    // Pair through the CLI, which talks to the same engine; the credentials go to the keychain.
    QProcess pair;
    pair.setProcessEnvironment(m_env);
    pair.start(serverBinary(), {QStringLiteral("pair"), QStringLiteral("--no-qr")});
    static const QRegularExpression codeFormat(
        QStringLiteral("\\b([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\\b"));
    QString code;
    QByteArray printed;
    QDeadlineTimer deadline(20000);
    while (code.isEmpty() && !deadline.hasExpired() && pair.state() != QProcess::NotRunning) {
        pair.waitForReadyRead(100);
        printed += pair.readAllStandardOutput();
        code = codeFormat.match(QString::fromUtf8(printed)).captured(1);
    }
    QVERIFY2(!code.isEmpty(), printed.constData());
    QCOMPARE(m_hub->admin({QStringLiteral("approve"), code}), 0);
    QVERIFY(pair.waitForFinished(30000));
    QCOMPARE(pair.exitCode(), 0);
    QString serverId;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const QJsonObject s
                = QJsonDocument::fromJson(cli({QStringLiteral("status"), QStringLiteral("--json")})).object();
            serverId = s.value(QStringLiteral("serverId")).toString();
            return s.value(QStringLiteral("state")).toString() == QLatin1String("online");
        }(),
        20000);
    // Nothing secret was written beside the state: the keychain holds it.
    for (QDirIterator it(m_home.path(), QDir::Files, QDirIterator::Subdirectories); it.hasNext();)
        QVERIFY2(!it.next().endsWith(QStringLiteral("credentials.json")), qPrintable(it.filePath()));
    QCOMPARE(
        m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("count"), QStringLiteral("displayed")}).trimmed(),
        QByteArray("0"));
    // The hub revokes this computer: the next heartbeat learns it, and the desktop is told.
    QCOMPARE(m_hub->admin({QStringLiteral("revoke"), serverId}), 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("count"), QStringLiteral("displayed")}).trimmed()
            == "1",
        20000);
    shot(QStringLiteral("desktop-notification-unpaired"));

    // Clicking the notification (its default action) opens the window.
    QVERIFY(visibleWindows(QStringLiteral("^Isolation$")).isEmpty());
    m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("action"), QStringLiteral("0")});
    QTRY_VERIFY_WITH_TIMEOUT(!visibleWindows(QStringLiteral("^Isolation$")).isEmpty(), 10000);
    shot(QStringLiteral("desktop-window-after-notification"));

    // What the desktop showed: our summary and the reason, from our application.
    m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("close-all")});
    QByteArray history;
    QTRY_VERIFY_WITH_TIMEOUT(
        (history = m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("history")})).contains("no longer paired"),
        10000);
    QVERIFY2(history.contains("\"Isolation\""), history.constData());
    QVERIFY2(history.contains("revoked"), history.constData());

    // Quitting the tray (a logout's SIGTERM, as Quit) leaves the engine running.
    ::kill(pid_t(tray.processId()), SIGTERM);
    QVERIFY(tray.waitForFinished(30000));
    QCOMPARE(tray.exitStatus(), QProcess::NormalExit);
    QCOMPARE(tray.exitCode(), 0);
    QTest::qWait(1000);
    QCOMPARE(::kill(pid_t(m_enginePid), 0), 0);
    QCOMPARE((cli({QStringLiteral("status")}, &rc), rc), 0);
    QCOMPARE(QJsonDocument::fromJson(cli({QStringLiteral("status"), QStringLiteral("--json")}))
                 .object()
                 .value(QStringLiteral("pid"))
                 .toInteger(),
        m_enginePid);
}

QTEST_GUILESS_MAIN(tst_Desktop)
#include "tst_desktop.moc"
