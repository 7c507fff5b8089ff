// The tray's "Start the engine at login" against a real systemd user manager: Autostart finds the
// package's unit, enables and disables it through `systemctl --user`, and removes an engine
// autostart entry left from before. It changes the unit's state, so it runs only where the user
// manager is its own: tests/installer/in-systemd.sh runs it in a container booted with systemd.
// It is built with the tests but not registered with CTest (which runs on developers' desktops).
#include "autostart.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

#include <optional>

using isolation::Autostart;
using isolation::Status;

class tst_AutostartUnit final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void enablesAndDisablesTheUnit();

private:
    static QString isEnabled();
    static Status setEngine(Autostart &autostart, bool on);
};

QString tst_AutostartUnit::isEnabled()
{
    QProcess p;
    p.start(QStringLiteral("systemctl"),
        {QStringLiteral("--user"), QStringLiteral("is-enabled"), QStringLiteral("isolation-server.service")});
    p.waitForFinished(15000);
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

Status tst_AutostartUnit::setEngine(Autostart &autostart, bool on)
{
    std::optional<Status> result;
    autostart.setEngineAtLogin(on, [&result](Status s) { result = std::move(s); });
    if (!QTest::qWaitFor([&] { return result.has_value(); }, 20000))
        return isolation::Error::failed(QStringLiteral("done was not called within 20 s"));
    return *result;
}

void tst_AutostartUnit::initTestCase()
{
    if (qEnvironmentVariableIsEmpty("ISOLATION_TEST_OWN_USER_MANAGER"))
        QFAIL("run by tests/installer/in-systemd.sh only: it enables and disables the user's unit");
    QCOMPARE(isEnabled(), QStringLiteral("disabled"));
}

void tst_AutostartUnit::enablesAndDisablesTheUnit()
{
    // An entry from a time without the unit: it would start a second engine at login.
    const QString entry = Autostart::engineEntryFile();
    {
        Autostart old;
        old.setEngineProgram(QStringLiteral("/usr/bin/isolation-server"));
        old.setSystemctlProgram(QStringLiteral("/nonexistent/systemctl")); // as on a desktop without systemd
        QVERIFY(setEngine(old, true).ok());
    }
    QVERIFY(QFile::exists(entry));

    Autostart autostart;
    QSignalSpy changed(&autostart, &Autostart::changed);
    autostart.refresh();
    QVERIFY(changed.wait(20000));
    QCOMPARE(autostart.engineMechanism(), QStringLiteral("systemd"));
    QVERIFY(!autostart.engineAtLogin()); // the unit decides now, not the entry

    const Status on = setEngine(autostart, true);
    QVERIFY2(on.ok(), qPrintable(on.ok() ? QString() : on.error().message));
    QCOMPARE(isEnabled(), QStringLiteral("enabled"));
    QVERIFY(autostart.engineAtLogin());
    QVERIFY(!QFile::exists(entry));

    Autostart again; // the tray started again reads the same
    QSignalSpy againChanged(&again, &Autostart::changed);
    again.refresh();
    QVERIFY(againChanged.wait(20000));
    QVERIFY(again.engineAtLogin());

    const Status off = setEngine(autostart, false);
    QVERIFY2(off.ok(), qPrintable(off.ok() ? QString() : off.error().message));
    QCOMPARE(isEnabled(), QStringLiteral("disabled"));
    QVERIFY(!autostart.engineAtLogin());
}

QTEST_GUILESS_MAIN(tst_AutostartUnit)
#include "tst_autostartunit.moc"
