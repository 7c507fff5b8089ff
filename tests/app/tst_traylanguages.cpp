// The tray in each of its languages: the catalogue compiled into the binary is chosen from the
// locale, the engine's own messages (a separate `isolation-server up` in the same locale) follow,
// and each language leaves screenshots of the window, the menu and the pairing dialog in
// ISOLATION_TEST_OUTPUT/screenshots/.
#include "enginemodel.h"
#include "engineprocess.h"
#include "hubprocess.h"
#include "mainwindow.h"
#include "trayapplication.h"

#include "core/paths.h"
#include "core/translations.h"

#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;

class tst_TrayLanguages final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void catalogues();
    void chosenFromTheLocale_data();
    void chosenFromTheLocale();
    void trayInEachLanguage_data();
    void trayInEachLanguage();

private:
    void saveShot(const QPixmap &shot, const QString &name);
    QString m_shots;
};

namespace {
Paths pathsFor(const QString &home)
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), home);
    return Paths::resolve(env).value();
}

QWidget *visibleTopLevel(const QString &objectName)
{
    for (QWidget *w : QApplication::topLevelWidgets()) {
        if (w->objectName() == objectName && w->isVisible())
            return w;
    }
    return nullptr;
}

QString plain(QString text)
{
    return text.remove(QRegularExpression(QStringLiteral("\\(&.\\)"))).remove(QLatin1Char('&'));
}
} // namespace

void tst_TrayLanguages::initTestCase()
{
    const QString out
        = qEnvironmentVariable("ISOLATION_TEST_OUTPUT", QDir::tempPath() + QStringLiteral("/isolation-test-output"));
    m_shots = out + QStringLiteral("/screenshots");
    QVERIFY(QDir().mkpath(m_shots));
}

void tst_TrayLanguages::cleanup()
{
    Translations::install(QLocale(QLocale::English, QLocale::UnitedStates));
}

void tst_TrayLanguages::saveShot(const QPixmap &shot, const QString &name)
{
    QVERIFY(!shot.isNull());
    const QString path = m_shots + QLatin1Char('/') + name + QStringLiteral(".png");
    QVERIFY2(shot.save(path), qPrintable(path));
    qInfo().noquote() << "screenshot:" << path;
}

void tst_TrayLanguages::catalogues()
{
    const QStringList languages = Translations::available();
    QVERIFY2(languages.contains(QStringLiteral("de")), qPrintable(languages.join(u',')));
    QVERIFY2(languages.contains(QStringLiteral("zh_CN")), qPrintable(languages.join(u',')));
}

void tst_TrayLanguages::chosenFromTheLocale_data()
{
    QTest::addColumn<QString>("locale");
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("quit");
    QTest::newRow("de_DE") << "de_DE"
                           << "de"
                           << "Isolation-Tray &beenden";
    QTest::newRow("de_AT") << "de_AT"
                           << "de"
                           << "Isolation-Tray &beenden";
    QTest::newRow("zh_CN") << "zh_CN"
                           << "zh_CN"
                           << "退出 Isolation 托盘(&Q)";
    QTest::newRow("en_US") << "en_US"
                           << "en"
                           << "&Quit Isolation tray";
    QTest::newRow("fr_FR falls back to English") << "fr_FR"
                                                 << "en"
                                                 << "&Quit Isolation tray";
}

void tst_TrayLanguages::chosenFromTheLocale()
{
    QFETCH(QString, locale);
    QFETCH(QString, language);
    QFETCH(QString, quit);
    QCOMPARE(Translations::install(QLocale(locale)), language);
    QCOMPARE(QCoreApplication::translate("isolation::TrayApplication", "&Quit Isolation tray"), quit);
}

void tst_TrayLanguages::trayInEachLanguage_data()
{
    QTest::addColumn<QString>("locale");
    QTest::addColumn<QStringList>("menu");
    QTest::addColumn<QStringList>("tabs");
    QTest::addColumn<QString>("notPaired");
    QTest::addColumn<QString>("expiresIn");
    QTest::newRow("de") << "de_DE"
                        << QStringList {"Diesen Computer koppeln…", "Sitzungen", "Isolation öffnen…",
                               "Benachrichtigungen eine Stunde pausieren", "Einstellungen…", "Engine stoppen…",
                               "Isolation-Tray beenden"}
                        << QStringList {"Sitzungen", "Änderungen", "Konflikte", "Warmer Cache", "Laufzeitumgebung",
                               "Aktivität"}
                        << "Nicht gekoppelt"
                        << "Der Code läuft in";
    QTest::newRow("zh_CN") << "zh_CN"
                           << QStringList {"配对此计算机…", "会话", "打开 Isolation…", "暂停通知一小时", "设置…",
                                  "停止引擎…", "退出 Isolation 托盘"}
                           << QStringList {"会话", "更改", "冲突", "预热缓存", "运行时", "活动"} << "未配对"
                           << "代码将在";
    QTest::newRow("en") << "en_US"
                        << QStringList {"Pair this computer…", "Sessions", "Open Isolation…",
                               "Pause notifications for an hour", "Settings…", "Stop the engine…",
                               "Quit Isolation tray"}
                        << QStringList {"Sessions", "Changes", "Conflicts", "Warm cache", "Runtime", "Activity"}
                        << "Not paired"
                        << "The code expires in";
}

void tst_TrayLanguages::trayInEachLanguage()
{
    QFETCH(QString, locale);
    QFETCH(QStringList, menu);
    QFETCH(QStringList, tabs);
    QFETCH(QString, notPaired);
    QFETCH(QString, expiresIn);
    const QString language = Translations::install(QLocale(locale));

    test::HubProcess hub;
    QVERIFY(hub.start());
    QTemporaryDir home;
    // The engine, a process of its own, in the user's locale.
    test::EngineProcess engine(home.path());
    engine.setHub(hub.appUrl().toString());
    engine.environment().insert(QStringLiteral("LC_ALL"), locale + QStringLiteral(".UTF-8"));
    QVERIFY(engine.start());
    EngineModel model(pathsFor(home.path()));
    model.connection().attach();
    QTRY_VERIFY_WITH_TIMEOUT(model.attached(), 20000);
    // The engine's own message follows the language too.
    QTRY_VERIFY2(model.stateReason().startsWith(notPaired), qPrintable(model.stateReason()));
    TrayApplication tray(model);

    // The menu, in order, without its separators, the disabled state line and what is hidden.
    QStringList actions;
    for (QAction *a : tray.menu()->actions()) {
        if (!a->isSeparator() && a->isVisible() && a->objectName() != QLatin1String("stateLine"))
            actions << plain(a->text());
    }
    QCOMPARE(actions, menu);
    QVERIFY2(tray.trayIcon()->toolTip().contains(notPaired), qPrintable(tray.trayIcon()->toolTip()));

    tray.showWindow();
    QVERIFY(QTest::qWaitForWindowExposed(tray.window()));
    QTabWidget *tabWidget = tray.window()->tabs();
    QStringList tabTexts;
    for (int i = 0; i < tabWidget->count(); ++i)
        tabTexts << plain(tabWidget->tabText(i));
    QCOMPARE(tabTexts, tabs);
    tray.window()->resize(900, 560);
    saveShot(tray.window()->grab(), QStringLiteral("tray-%1-window").arg(language));
    tray.menu()->adjustSize();
    saveShot(tray.menu()->grab(), QStringLiteral("tray-%1-menu").arg(language));

    tray.showPairing();
    QTRY_VERIFY(visibleTopLevel(QStringLiteral("pairingDialog")));
    QWidget *dialog = visibleTopLevel(QStringLiteral("pairingDialog"));
    auto *code = dialog->findChild<QLabel *>(QStringLiteral("pairingCode"));
    auto *countdown = dialog->findChild<QLabel *>(QStringLiteral("pairingCountdown"));
    QVERIFY(code && countdown);
    QTRY_VERIFY_WITH_TIMEOUT(code->text().contains(QLatin1Char('-')), 10000);
    QTRY_VERIFY2(countdown->text().startsWith(expiresIn), qPrintable(countdown->text()));
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    saveShot(dialog->grab(), QStringLiteral("tray-%1-pairing").arg(language));
    dialog->close();
}

QTEST_MAIN(tst_TrayLanguages)
#include "tst_traylanguages.moc"
