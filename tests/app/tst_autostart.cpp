// Starting at login (issue 21): which mechanism starts the engine, and the XDG autostart entries
// for the engine and the tray, read back as a desktop session reads them.
#include "autostart.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLocalServer>
#include <QMap>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using isolation::Autostart;
using isolation::Status;

namespace {

// The [Desktop Entry] group of a desktop file, parsed as the spec says (key=value lines, # comments,
// [Group] headers), not with QSettings, which reads ; and , and \ its own way.
QMap<QString, QString> desktopEntry(const QString &file)
{
    QMap<QString, QString> keys;
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        return keys;
    const QStringList lines = QString::fromUtf8(in.readAll()).split(QLatin1Char('\n'));
    if (lines.value(0) != QLatin1String("[Desktop Entry]"))
        return keys; // the spec: the first group is [Desktop Entry]
    for (const QString &line : lines.mid(1)) {
        if (line.startsWith(QLatin1Char('[')))
            break;
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0 || keys.contains(line.left(eq).trimmed()))
            return {}; // malformed, or a key twice
        keys.insert(line.left(eq).trimmed(), line.mid(eq + 1).trimmed());
    }
    return keys;
}

// Waits for `done` of setEngineAtLogin(), and checks it did not come from inside the call.
Status setEngine(Autostart &autostart, bool on)
{
    bool called = false;
    Status result = isolation::Error::failed(QStringLiteral("done was not called"));
    autostart.setEngineAtLogin(on, [&](Status s) {
        called = true;
        result = std::move(s);
    });
    if (called)
        return isolation::Error::failed(QStringLiteral("done was called from inside setEngineAtLogin()"));
    if (!QTest::qWaitFor([&] { return called; }, 20000))
        return isolation::Error::failed(QStringLiteral("done was not called within 20 s"));
    return result;
}

// QVERIFY2 evaluates its message always: only an error has one.
const char *why(const Status &s)
{
    static QByteArray message;
    message = s.ok() ? QByteArray() : s.error().message.toUtf8();
    return message.constData();
}

} // namespace

class tst_Autostart final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void engineEntryWithoutSystemctl();
    void engineWithoutProgram();
    void realSystemctl();
    void systemctlThatNeverAnswers();
    void trayEntry();
    void switchedOffEntryDoesNotStart();
    void relativeConfigHomeIsIgnored();
    void execArgument_data();
    void execArgument();

private:
    std::unique_ptr<QTemporaryDir> m_config;
    std::unique_ptr<QTemporaryDir> m_emptyBin;
    QByteArray m_path;
    QByteArray m_configHome;
};

void tst_Autostart::init()
{
    m_config = std::make_unique<QTemporaryDir>();
    m_emptyBin = std::make_unique<QTemporaryDir>();
    QVERIFY(m_config->isValid() && m_emptyBin->isValid());
    m_path = qgetenv("PATH");
    m_configHome = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", m_config->path().toUtf8());
}

void tst_Autostart::cleanup()
{
    qputenv("PATH", m_path);
    if (m_configHome.isNull())
        qunsetenv("XDG_CONFIG_HOME");
    else
        qputenv("XDG_CONFIG_HOME", m_configHome);
}

void tst_Autostart::engineEntryWithoutSystemctl()
{
    qputenv("PATH", m_emptyBin->path().toUtf8()); // no systemctl to be found
    Autostart autostart;
    QCOMPARE(autostart.engineMechanism(), QString()); // not asked yet
    const QString engine = m_emptyBin->path() + QStringLiteral("/my programs/isolation-server");
    autostart.setEngineProgram(engine);
    const QString file = m_config->path() + QStringLiteral("/autostart/io.isolation.Engine.desktop");
    QCOMPARE(Autostart::engineEntryFile(), file);

    QSignalSpy changed(&autostart, &Autostart::changed);
    autostart.refresh();
    QVERIFY(changed.wait(5000));
    QVERIFY(autostart.isReady());
    QCOMPARE(autostart.engineMechanism(), QStringLiteral("autostart"));
    QVERIFY(!autostart.engineAtLogin());
    QVERIFY(!QFile::exists(file));

    const Status on = setEngine(autostart, true);
    QVERIFY2(on.ok(), why(on));
    QVERIFY(autostart.engineAtLogin());
    const auto keys = desktopEntry(file);
    QCOMPARE(keys.value(QStringLiteral("Type")), QStringLiteral("Application"));
    QCOMPARE(keys.value(QStringLiteral("Exec")), QStringLiteral("\"%1\" up").arg(engine));
    QCOMPARE(keys.value(QStringLiteral("NoDisplay")), QStringLiteral("true"));
    QCOMPARE(keys.value(QStringLiteral("X-GNOME-Autostart-enabled")), QStringLiteral("true"));
    QVERIFY(!keys.value(QStringLiteral("Name")).isEmpty());
    QVERIFY(!keys.value(QStringLiteral("Comment")).isEmpty());

    // A second Autostart (the tray started again) reads the same state back.
    Autostart again;
    QVERIFY(again.engineAtLogin());

    const Status off = setEngine(autostart, false);
    QVERIFY2(off.ok(), why(off));
    QVERIFY(!QFile::exists(file));
    QVERIFY(!autostart.engineAtLogin());
    QVERIFY(!again.engineAtLogin());
    QVERIFY(changed.count() >= 3); // the answer, on, off

    // Without a unit the tray's Start cannot go through systemd: NotFound, so it starts the engine
    // itself (tests/installer/in-systemd.sh runs the other way, under a real user manager).
    std::optional<Status> started;
    autostart.startEngineUnit([&started](Status s) { started = std::move(s); });
    QVERIFY(!started); // never from inside the call
    QTRY_VERIFY_WITH_TIMEOUT(started.has_value(), 5000);
    QVERIFY(!started->ok());
    QCOMPARE(started->error().code, isolation::Error::Code::NotFound);
}

void tst_Autostart::engineWithoutProgram()
{
    // Neither beside this test nor on PATH: a clear error, and no entry that starts nothing.
    qputenv("PATH", m_emptyBin->path().toUtf8());
    QVERIFY(!QFile::exists(QCoreApplication::applicationDirPath() + QStringLiteral("/isolation-server")));
    Autostart autostart;
    QCOMPARE(autostart.engineProgram(), QString());
    const Status on = setEngine(autostart, true);
    QVERIFY(!on.ok());
    QVERIFY2(on.error().message.contains(QStringLiteral("isolation-server")), why(on));
    QVERIFY(!QFile::exists(Autostart::engineEntryFile()));
    QCOMPARE(autostart.trayProgram(), QString());
    QVERIFY(!autostart.setTrayAtLogin(true).ok());
    QVERIFY(!QFile::exists(Autostart::trayEntryFile()));
}

void tst_Autostart::realSystemctl()
{
    // The real systemctl on this machine, asked as the class asks it. Where no user manager runs
    // (a container, CI) the entry is used; where one runs, the unit decides, and its state is
    // read back as is (this test does not enable or disable a unit of the member's).
    const QString systemctl = QStandardPaths::findExecutable(QStringLiteral("systemctl"));
    if (systemctl.isEmpty())
        QSKIP("no systemctl on this machine");
    auto run = [&](const QStringList &args) {
        QProcess p;
        p.start(systemctl, QStringList{QStringLiteral("--user")} + args);
        p.waitForFinished(15000);
        return std::pair(p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()).trimmed());
    };
    QString expected = QStringLiteral("autostart");
    bool enabled = false;
    if (run({QStringLiteral("show-environment")}).first == 0
        && run({QStringLiteral("cat"), QStringLiteral("isolation-server.service")}).first == 0) {
        expected = QStringLiteral("systemd");
        enabled = run({QStringLiteral("is-enabled"), QStringLiteral("isolation-server.service")}).second
            == QLatin1String("enabled");
    }
    qInfo("systemctl --user here: %s", qPrintable(expected));

    Autostart autostart;
    QSignalSpy changed(&autostart, &Autostart::changed);
    autostart.refresh();
    QVERIFY(changed.wait(20000));
    QCOMPARE(autostart.engineMechanism(), expected);
    QCOMPARE(autostart.engineAtLogin(), enabled);
    if (expected == QLatin1String("autostart")) {
        autostart.setEngineProgram(QStringLiteral("/opt/isolation/bin/isolation-server"));
        QVERIFY(setEngine(autostart, true).ok());
        QCOMPARE(desktopEntry(Autostart::engineEntryFile()).value(QStringLiteral("Exec")),
            QStringLiteral("/opt/isolation/bin/isolation-server up"));
        QVERIFY(setEngine(autostart, false).ok());
        QVERIFY(!QFile::exists(Autostart::engineEntryFile()));
    }
}

void tst_Autostart::systemctlThatNeverAnswers()
{
    // The real systemctl, talking to a user manager socket that accepts and never answers (a stuck
    // manager): the timeout ends the question, the entry is used, and the process is gone.
    const QString systemctl = QStandardPaths::findExecutable(QStringLiteral("systemctl"));
    if (systemctl.isEmpty())
        QSKIP("no systemctl on this machine");
    QTemporaryDir runtime;
    QVERIFY(QDir().mkpath(runtime.path() + QStringLiteral("/systemd")));
    QLocalServer stuck;
    QVERIFY(stuck.listen(runtime.path() + QStringLiteral("/systemd/private")));
    const QByteArray runtimeDir = qgetenv("XDG_RUNTIME_DIR");
    qputenv("XDG_RUNTIME_DIR", runtime.path().toUtf8());
    auto restore = qScopeGuard([&] {
        if (runtimeDir.isNull())
            qunsetenv("XDG_RUNTIME_DIR");
        else
            qputenv("XDG_RUNTIME_DIR", runtimeDir);
    });

    Autostart autostart;
    autostart.setTimeout(1000);
    QSignalSpy changed(&autostart, &Autostart::changed);
    QElapsedTimer clock;
    clock.start();
    autostart.refresh();
    QVERIFY(changed.wait(10000));
    QVERIFY2(clock.elapsed() >= 990, QByteArray::number(clock.elapsed()).constData());
    QVERIFY(stuck.hasPendingConnections()); // it did reach the stuck manager
    QCOMPARE(autostart.engineMechanism(), QStringLiteral("autostart"));
    QTRY_COMPARE(autostart.findChildren<QProcess *>().size(), 0);
}

void tst_Autostart::trayEntry()
{
    Autostart autostart;
    autostart.setTrayProgram(QStringLiteral("/usr/bin/isolation-tray"));
    const QString file = m_config->path() + QStringLiteral("/autostart/io.isolation.Tray.desktop");
    QCOMPARE(Autostart::trayEntryFile(), file);
    QVERIFY(!autostart.trayAtLogin());
    QSignalSpy changed(&autostart, &Autostart::changed);

    QVERIFY(autostart.setTrayAtLogin(true).ok());
    QVERIFY(autostart.trayAtLogin());
    const auto keys = desktopEntry(file);
    QCOMPARE(keys.value(QStringLiteral("Exec")), QStringLiteral("/usr/bin/isolation-tray"));
    QCOMPARE(keys.value(QStringLiteral("Type")), QStringLiteral("Application"));
    QCOMPARE(keys.value(QStringLiteral("X-GNOME-Autostart-enabled")), QStringLiteral("true"));
    QVERIFY(!keys.value(QStringLiteral("Name")).isEmpty());
    QVERIFY(!keys.contains(QStringLiteral("NoDisplay")));
    // The engine's entry is a separate thing.
    QVERIFY(!QFile::exists(Autostart::engineEntryFile()));

    // Written again over itself (atomically, no stale temporary left in the folder).
    QVERIFY(autostart.setTrayAtLogin(true).ok());
    QCOMPARE(QDir(m_config->path() + QStringLiteral("/autostart")).entryList(QDir::Files),
        QStringList{QStringLiteral("io.isolation.Tray.desktop")});

    QVERIFY(autostart.setTrayAtLogin(false).ok());
    QVERIFY(!QFile::exists(file));
    QVERIFY(!autostart.trayAtLogin());
    QVERIFY(autostart.setTrayAtLogin(false).ok()); // nothing to remove is not an error
    QCOMPARE(changed.count(), 4);
}

void tst_Autostart::switchedOffEntryDoesNotStart()
{
    // GNOME's Startup Applications switches an entry off in place; Hidden=true deletes it.
    Autostart autostart;
    autostart.setTrayProgram(QStringLiteral("/usr/bin/isolation-tray"));
    QVERIFY(autostart.setTrayAtLogin(true).ok());
    QFile file(Autostart::trayEntryFile());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray written = file.readAll();
    file.close();
    for (const QByteArray &off : {QByteArray("X-GNOME-Autostart-enabled=false"), QByteArray("Hidden=true")}) {
        QByteArray edited = written;
        edited.replace("X-GNOME-Autostart-enabled=true", off);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(edited);
        file.close();
        QVERIFY2(!autostart.trayAtLogin(), off.constData());
    }
    // Switching it on again writes a fresh entry that starts.
    QVERIFY(autostart.setTrayAtLogin(true).ok());
    QVERIFY(autostart.trayAtLogin());
}

void tst_Autostart::relativeConfigHomeIsIgnored()
{
    const QByteArray home = qgetenv("HOME");
    qputenv("HOME", m_config->path().toUtf8());
    qputenv("XDG_CONFIG_HOME", "relative/config");
    const QString engine = Autostart::engineEntryFile();
    qputenv("HOME", home);
    QCOMPARE(engine, m_config->path() + QStringLiteral("/.config/autostart/io.isolation.Engine.desktop"));
}

void tst_Autostart::execArgument_data()
{
    QTest::addColumn<QString>("arg");
    QTest::addColumn<QString>("exec");
    QTest::newRow("plain") << "/usr/bin/isolation-server" << "/usr/bin/isolation-server";
    QTest::newRow("space") << "/home/a b/isolation-server" << "\"/home/a b/isolation-server\"";
    QTest::newRow("percent") << "/opt/100%/x" << "/opt/100%%/x";
    QTest::newRow("dollar") << "/opt/$x/y" << "\"/opt/\\$x/y\"";
    QTest::newRow("quote") << "/opt/\"q\"/y" << "\"/opt/\\\"q\\\"/y\"";
    // A literal backslash is four in the file (the quoting, then the string escape).
    QTest::newRow("backslash") << "/opt/a\\b" << "\"/opt/a\\\\\\\\b\"";
}

void tst_Autostart::execArgument()
{
    QFETCH(QString, arg);
    QFETCH(QString, exec);
    QCOMPARE(Autostart::execArgument(arg), exec);
}

QTEST_GUILESS_MAIN(tst_Autostart)
#include "tst_autostart.moc"
