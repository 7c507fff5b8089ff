// The real isolation-tray on a real (virtual) desktop (DesktopSession: Xvfb, trayer, dunst, a
// session bus with gnome-keyring), a client of the real engine (`isolation-server up`, a process of
// its own, issue 21) paired with the real hub, driven by the command line the way a
// member's scripts and agents drive it: two sessions of one workspace, a selection saved, another
// session saving first (412), a sync that conflicts, the conflict resolved. What is checked is what
// the desktop got: the notifications dunst received (each event once), and the badge drawn in the
// tray host's window (its pixels), which stays after the notification is closed until the conflict
// is resolved. Screenshots of the tray and of every tab land in ISOLATION_TEST_OUTPUT/screenshots/.
#include "desktopsession.h"
#include "engineprocess.h"
#include "hubprocess.h"
#include "notifier.h"

#include <QColor>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace isolation::test;

namespace {
// The badges' fills in resources/icons/tray-*.svg.
const QColor kConflictBadge(0xc2, 0x25, 0x5c);
const QColor kOnlineBadge(0x2f, 0x9e, 0x44);

struct Cli
{
    int rc = -1;
    QByteArray out;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};
} // namespace

class tst_DesktopSave final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void movedOnAndConflictReachTheDesktop();
    void aBurstOfOneKindFoldsIntoOne();

private:
    Cli cli(const QStringList &args);
    bool pair();
    // Closes what dunst shows, then returns the summaries of every notification it received.
    QStringList notificationSummaries();
    // The tray icon as the tray host shows it, saved as `name` and returned.
    QImage trayImage(const QString &name);
    static int pixelsNear(const QImage &image, const QColor &colour);
    QString mainWindow() const;
    QImage windowImage(const QString &window, const QString &name);
    static bool writeFile(const QString &path, const QByteArray &bytes);

    DesktopSession m_desktop;
    std::unique_ptr<HubProcess> m_hub;
    QTemporaryDir m_home;
    std::unique_ptr<EngineProcess> m_engine;
    QProcessEnvironment m_env;
    QString m_shots;
};

void tst_DesktopSave::initTestCase()
{
    QString error;
    QVERIFY2(m_desktop.start(DesktopSession::Everything, &error), qPrintable(error));
    m_hub = std::make_unique<HubProcess>();
    QVERIFY(m_hub->start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QCOMPARE(m_hub->admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral("demo")}), 0);
    m_env = m_desktop.environment();
    m_env.insert(QStringLiteral("ISOLATION_HOME"), m_home.path());
    m_env.insert(QStringLiteral("ISOLATION_HUB_URL"), m_hub->appUrl().toString());
    m_env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    m_env.remove(QStringLiteral("LANGUAGE"));
    m_shots = qEnvironmentVariable("ISOLATION_TEST_OUTPUT", QDir::tempPath() + QStringLiteral("/isolation-test-output"))
        + QStringLiteral("/screenshots");
    QVERIFY(QDir().mkpath(m_shots));
}

void tst_DesktopSave::cleanupTestCase()
{
    if (m_engine)
        QCOMPARE(m_engine->stop(), 0);
    m_hub.reset();
    m_desktop.stop();
}

Cli tst_DesktopSave::cli(const QStringList &args)
{
    QProcess p;
    p.setProcessEnvironment(m_env);
    p.start(serverBinary(), args);
    Cli r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.rc = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    if (r.rc != 0)
        qInfo().noquote() << args.join(QLatin1Char(' ')) << "->" << r.rc << p.readAllStandardError().trimmed();
    return r;
}

bool tst_DesktopSave::writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

bool tst_DesktopSave::pair()
{
    QProcess pairing;
    pairing.setProcessEnvironment(m_env);
    pairing.start(serverBinary(), {QStringLiteral("pair"), QStringLiteral("--no-qr")});
    static const QRegularExpression codeFormat(
        QStringLiteral("\\b([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\\b"));
    QString code;
    QByteArray printed;
    QDeadlineTimer deadline(20000);
    while (code.isEmpty() && !deadline.hasExpired() && pairing.state() != QProcess::NotRunning) {
        pairing.waitForReadyRead(100);
        printed += pairing.readAllStandardOutput();
        code = codeFormat.match(QString::fromUtf8(printed)).captured(1);
    }
    if (code.isEmpty() || m_hub->admin({QStringLiteral("approve"), code}) != 0)
        return false;
    return pairing.waitForFinished(30000) && pairing.exitCode() == 0;
}

QStringList tst_DesktopSave::notificationSummaries()
{
    m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("close-all")});
    // dunstctl history: {"type": "aa{sv}", "data": [[{"summary": {"type": "s", "data": "..."}, ...}, ...]]}
    const QJsonObject history
        = QJsonDocument::fromJson(m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("history")})).object();
    QStringList summaries;
    for (const QJsonValue &n : history.value(QStringLiteral("data")).toArray().at(0).toArray()) {
        const QJsonObject o = n.toObject();
        if (o.value(QStringLiteral("appname")).toObject().value(QStringLiteral("data")).toString()
            == QLatin1String("Isolation"))
            summaries << o.value(QStringLiteral("summary")).toObject().value(QStringLiteral("data")).toString();
    }
    return summaries;
}

QImage tst_DesktopSave::trayImage(const QString &name)
{
    // Our icon's window, embedded in trayer's (XEmbed): the small visible window of our class.
    const QStringList windows
        = QString::fromUtf8(m_desktop.run(QStringLiteral("xdotool"),
                                {QStringLiteral("search"), QStringLiteral("--onlyvisible"),
                                    QStringLiteral("--classname"), QStringLiteral("isolation-tray")}))
              .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    static const QRegularExpression geometry(QStringLiteral("Geometry: (\\d+)x(\\d+)"));
    for (const QString &window : windows) {
        const auto m = geometry.match(
            QString::fromUtf8(m_desktop.run(QStringLiteral("xdotool"), {QStringLiteral("getwindowgeometry"), window})));
        if (m.hasMatch() && m.captured(1).toInt() <= 64 && m.captured(2).toInt() <= 64)
            return windowImage(window, name);
    }
    return {};
}

QImage tst_DesktopSave::windowImage(const QString &window, const QString &name)
{
    if (window.isEmpty())
        return {};
    const QString path = m_shots + QLatin1Char('/') + name + QStringLiteral(".png");
    int rc = -1;
    m_desktop.run(QStringLiteral("import"), {QStringLiteral("-window"), window, path}, &rc, 30000);
    if (rc != 0)
        return {};
    qInfo().noquote() << "screenshot:" << path;
    return QImage(path);
}

int tst_DesktopSave::pixelsNear(const QImage &image, const QColor &colour)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green())
                    + std::abs(c.blue() - colour.blue())
                < 40;
        }
    }
    return n;
}

QString tst_DesktopSave::mainWindow() const
{
    return QString::fromUtf8(m_desktop
                                 .run(QStringLiteral("xdotool"),
                                     {QStringLiteral("search"), QStringLiteral("--onlyvisible"),
                                         QStringLiteral("--name"), QStringLiteral("^Isolation$")})
                                 .trimmed())
        .section(QLatin1Char('\n'), 0, 0);
}

void tst_DesktopSave::movedOnAndConflictReachTheDesktop()
{
    // The engine first, a process of its own in the desktop session; then the tray attaches to it.
    m_engine = std::make_unique<EngineProcess>(m_home.path());
    m_engine->environment() = m_env;
    m_engine->setRuntime(false);
    QVERIFY(m_engine->start());
    QProcess tray;
    tray.setProcessEnvironment(m_env);
    tray.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    tray.start(trayBinary(), {});
    QVERIFY(tray.waitForStarted());
    const QString attached = QStringLiteral("attached to the engine, pid %1").arg(m_engine->pid());
    auto trayLogSays = [this, &attached] {
        QFile log(m_home.path() + QStringLiteral("/state/tray.log"));
        return log.open(QIODevice::ReadOnly) && QString::fromUtf8(log.readAll()).contains(attached);
    };
    QTRY_VERIFY_WITH_TIMEOUT(trayLogSays(), 20000);
    QVERIFY(pair());
    QTRY_COMPARE_WITH_TIMEOUT(
        cli({QStringLiteral("status"), QStringLiteral("--json")}).json().value(QStringLiteral("state")).toString(),
        QStringLiteral("online"), 20000);
    // Online and nothing to worry about: the green badge in the tray host.
    QTRY_VERIFY_WITH_TIMEOUT(pixelsNear(trayImage(QStringLiteral("desktop-tray-online")), kOnlineBadge) > 5, 10000);

    // --- Two sessions of one workspace, through the tray's engine.
    const QJsonObject a = cli({QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"),
                                  QStringLiteral("demo"), QStringLiteral("--json")})
                              .json();
    const QJsonObject b = cli({QStringLiteral("session"), QStringLiteral("new"), QStringLiteral("--workspace"),
                                  QStringLiteral("demo"), QStringLiteral("--json")})
                              .json();
    const QString idA = a.value(QStringLiteral("id")).toString();
    const QString idB = b.value(QStringLiteral("id")).toString();
    const QString workA = a.value(QStringLiteral("worktree")).toString();
    const QString workB = b.value(QStringLiteral("worktree")).toString();
    QVERIFY2(!idA.isEmpty() && !idB.isEmpty() && idA != idB, qPrintable(idA + QLatin1Char(' ') + idB));

    // --- A saves a selection: two files of three; the third stays a change of the session.
    QVERIFY(writeFile(workA + QStringLiteral("/a.txt"), "one\ntwo\nthree\n"));
    QVERIFY(writeFile(workA + QStringLiteral("/b.txt"), "bee\n"));
    QVERIFY(writeFile(workA + QStringLiteral("/c.txt"), "not yet\n"));
    Cli saved = cli({QStringLiteral("save"), idA, QStringLiteral("--file"), workA + QStringLiteral("/a.txt"),
        QStringLiteral("--file"), workA + QStringLiteral("/b.txt"), QStringLiteral("-m"),
        QStringLiteral("two of three"), QStringLiteral("--json")});
    QCOMPARE(saved.rc, 0);
    QCOMPARE(saved.json().value(QStringLiteral("files")).toArray().size(), 2);
    const QJsonArray left = cli({QStringLiteral("changes"), idA, QStringLiteral("--json")})
                                .json()
                                .value(QStringLiteral("files"))
                                .toArray();
    QCOMPARE(left.size(), 1);
    QCOMPARE(left.at(0).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("c.txt"));
    QCOMPARE(cli({QStringLiteral("sync"), idB}).rc, 0);
    QVERIFY(QFile::exists(workB + QStringLiteral("/a.txt")));

    // --- Both change the same line; A saves first, B's save is refused (412): exit code 8.
    QVERIFY(writeFile(workA + QStringLiteral("/a.txt"), "one\nTWO by a\nthree\n"));
    QVERIFY(writeFile(workB + QStringLiteral("/a.txt"), "one\nTWO by b\nthree\n"));
    QCOMPARE(cli({QStringLiteral("save"), idA, QStringLiteral("-m"), QStringLiteral("a's line")}).rc, 0);
    QCOMPARE(cli({QStringLiteral("save"), idB, QStringLiteral("-m"), QStringLiteral("b's line")}).rc, 8);
    const QString movedOn = QStringLiteral("Another session saved first");
    QStringList summaries;
    QTRY_VERIFY_WITH_TIMEOUT((summaries = notificationSummaries()).contains(movedOn), 20000);
    QCOMPARE(summaries.count(movedOn), 1);
    // The same event again (B saves again before syncing): the first notification was closed, so
    // a second one would be a new entry in dunst's history.
    QCOMPARE(cli({QStringLiteral("save"), idB, QStringLiteral("-m"), QStringLiteral("b's line")}).rc, 8);

    // --- B syncs: the same line on both sides conflicts (exit code 9), nothing changes in B.
    QCOMPARE(cli({QStringLiteral("sync"), idB}).rc, 9);
    static const QRegularExpression conflictSummary(QStringLiteral("^1 file in conflict$"));
    QTRY_VERIFY_WITH_TIMEOUT(!(summaries = notificationSummaries()).filter(conflictSummary).isEmpty(), 20000);
    QCOMPARE(summaries.filter(conflictSummary).size(), 1);
    QCOMPARE(summaries.count(movedOn), 1); // D-Bus keeps order: a second one would be here by now
    QCOMPARE(summaries.size(), 2);

    // The notification is gone from the screen; the red badge stays.
    QCOMPARE(
        m_desktop.run(QStringLiteral("dunstctl"), {QStringLiteral("count"), QStringLiteral("displayed")}).trimmed(),
        QByteArray("0"));
    QTRY_VERIFY_WITH_TIMEOUT(pixelsNear(trayImage(QStringLiteral("desktop-tray-conflict")), kConflictBadge) > 5, 10000);
    QCOMPARE(pixelsNear(trayImage(QStringLiteral("desktop-tray-conflict")), kOnlineBadge), 0);

    // Markers in the file: still in conflict, still one notification of it.
    QCOMPARE(cli({QStringLiteral("sync"), idB, QStringLiteral("--resolve")}).rc, 9);
    QFile marked(workB + QStringLiteral("/a.txt"));
    QVERIFY(marked.open(QIODevice::ReadOnly));
    QVERIFY(marked.readAll().contains("<<<<<<< "));
    marked.close();
    QTest::qWait(1500); // heartbeats (1 s here) and the tray's rescan come and go
    QVERIFY(pixelsNear(trayImage(QStringLiteral("desktop-tray-conflict")), kConflictBadge) > 5);

    // --- Every tab, opened the way a member does: starting the tray again raises the window;
    // then Alt+mnemonic on the keyboard. Each tab looks different from the one before.
    QProcess second;
    second.setProcessEnvironment(m_env);
    second.start(trayBinary(), {});
    QVERIFY(second.waitForFinished(20000));
    QCOMPARE(second.exitCode(), 0);
    QString window;
    QTRY_VERIFY_WITH_TIMEOUT(!(window = mainWindow()).isEmpty(), 10000);
    m_desktop.run(QStringLiteral("xdotool"), {QStringLiteral("windowfocus"), QStringLiteral("--sync"), window});
    const QList<std::pair<QString, QString>> tabs {{QStringLiteral("alt+s"), QStringLiteral("sessions")},
        {QStringLiteral("alt+c"), QStringLiteral("changes")}, {QStringLiteral("alt+o"), QStringLiteral("conflicts")},
        {QStringLiteral("alt+w"), QStringLiteral("cache")}, {QStringLiteral("alt+r"), QStringLiteral("runtime")},
        {QStringLiteral("alt+a"), QStringLiteral("activity")}};
    // Another tab shows other content: thousands of pixels change below the tabs, where a letter
    // that only moved the focus to a button of the same page changes a focus frame.
    auto changed = [](const QImage &a, const QImage &b) {
        if (a.size() != b.size())
            return true;
        int n = 0;
        for (int y = 60; y < a.height(); ++y) {
            for (int x = 0; x < a.width(); ++x)
                n += a.pixel(x, y) != b.pixel(x, y);
        }
        return n > 2000;
    };
    QImage previous;
    for (const auto &[key, name] : tabs) {
        m_desktop.run(QStringLiteral("xdotool"), {QStringLiteral("key"), key});
        QImage page;
        QTRY_VERIFY2_WITH_TIMEOUT(
            !(page = windowImage(window, QStringLiteral("desktop-window-") + name)).isNull() && changed(page, previous),
            qPrintable(name), 10000);
        previous = page;
    }
    QVERIFY(m_desktop.screenshot(m_shots + QStringLiteral("/desktop-window-and-tray.png")));

    // --- Resolved in the file and saved: the merge completes, the badge goes back to green.
    QVERIFY(writeFile(workB + QStringLiteral("/a.txt"), "one\nTWO by both\nthree\n"));
    saved = cli({QStringLiteral("save"), idB, QStringLiteral("--json")});
    QCOMPARE(saved.rc, 0);
    QVERIFY(saved.json().value(QStringLiteral("completedMerge")).toBool());
    QTRY_VERIFY_WITH_TIMEOUT(pixelsNear(trayImage(QStringLiteral("desktop-tray-resolved")), kOnlineBadge) > 5, 10000);
    QCOMPARE(pixelsNear(trayImage(QStringLiteral("desktop-tray-resolved")), kConflictBadge), 0);
    QCOMPARE(notificationSummaries().size(), 2);

    ::kill(pid_t(tray.processId()), SIGTERM);
    QVERIFY(tray.waitForFinished(30000));
    QCOMPARE(tray.exitStatus(), QProcess::NormalExit);
    QCOMPARE(tray.exitCode(), 0);
    // The tray was a window on the engine: the engine runs on, still paired and online.
    QVERIFY(m_engine->running());
    QCOMPARE(
        cli({QStringLiteral("status"), QStringLiteral("--json")}).json().value(QStringLiteral("state")).toString(),
        QStringLiteral("online"));
}

// Three sessions moved on in one go (faster than the notification service answers): the desktop
// gets one notification, the newest, not three.
void tst_DesktopSave::aBurstOfOneKindFoldsIntoOne()
{
    m_desktop.enterThisProcess(); // this process's session bus is the desktop's from here on
    QCoreApplication::setApplicationName(QStringLiteral("Isolation")); // the notifications' app name
    notificationSummaries(); // closes what is still on screen
    const int before = int(notificationSummaries().size());
    isolation::Notifier notifier(nullptr);
    QSignalSpy shown(&notifier, &isolation::Notifier::shown);
    for (int i = 1; i <= 3; ++i) {
        isolation::Notification n;
        n.kind = QStringLiteral("moved_on");
        n.summary = QStringLiteral("burst %1").arg(i);
        notifier.notify(n);
    }
    QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 2, 10000); // the first, then the newest replacing it
    QTest::qWait(500);
    QCOMPARE(shown.size(), 2);
    QVERIFY(notifier.usedService());
    QCOMPARE(shown.at(0).at(1), shown.at(1).at(1)); // the same notification id: replaced in place
    const QStringList summaries = notificationSummaries();
    QCOMPARE(summaries.size(), before + 1);
    QVERIFY2(summaries.contains(QStringLiteral("burst 3")), qPrintable(summaries.join(QLatin1Char(','))));
}

QTEST_GUILESS_MAIN(tst_DesktopSave)
#include "tst_desktopsave.moc"
