// The real isolation-tray on a real (virtual) desktop: Xvfb, a system tray host (trayer), a
// notification daemon (dunst), a session bus with an unlocked gnome-keyring, and the real hub.
// The icon sits in the tray, pairing keeps the credentials in the keychain, and when the hub
// revokes the computer a notification reaches the desktop; clicking it opens the window.
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

using namespace isolation::test;

class tst_Desktop final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
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

void tst_Desktop::trayPairsAndNotifiesWhenRevoked()
{
    QProcess tray;
    tray.setProcessEnvironment(m_env);
    tray.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    tray.start(trayBinary(), {});
    QVERIFY(tray.waitForStarted());

    // The engine inside the tray answers, and the icon went into the tray host: the window
    // stays hidden (it is what the tray shows when no tray host exists).
    int rc = -1;
    QTRY_VERIFY_WITH_TIMEOUT((cli({QStringLiteral("status")}, &rc), rc == 0), 20000);
    const QByteArray trayWindows = m_desktop.run(QStringLiteral("xdotool"),
        {QStringLiteral("search"), QStringLiteral("--classname"), QStringLiteral("isolation-tray")});
    QVERIFY2(!trayWindows.trimmed().isEmpty(), "the tray made no X window at all");
    QVERIFY(visibleWindows(QStringLiteral("^Isolation$")).isEmpty());
    shot(QStringLiteral("desktop-tray-not-paired"));

    // Pair through the CLI, which talks to the tray's engine; the credentials go to the keychain.
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
    // Paired and idle with the runtime off: libcurl (only Docker calls need it) and libarchive
    // (only the tree export) were never loaded, and the keychain's libsecret stays in its helper.
    QFile maps(QStringLiteral("/proc/%1/maps").arg(tray.processId()));
    QVERIFY(maps.open(QIODevice::ReadOnly));
    const QByteArray mapped = maps.readAll();
    QVERIFY2(!mapped.contains("libcurl"), "the idle tray loaded libcurl");
    QVERIFY2(!mapped.contains("libarchive"), "the idle tray loaded libarchive");
    QVERIFY2(!mapped.contains("libsecret"), "the idle tray loaded libsecret");

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

    ::kill(pid_t(tray.processId()), SIGTERM);
    QVERIFY(tray.waitForFinished(30000));
    QCOMPARE(tray.exitStatus(), QProcess::NormalExit);
    QCOMPARE(tray.exitCode(), 0);
}

QTEST_GUILESS_MAIN(tst_Desktop)
#include "tst_desktop.moc"
