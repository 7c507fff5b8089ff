// The main window by keyboard alone, on a real engine (`isolation-server up`) paired with the real hub and a session with a
// change (so the session buttons are enabled): on every tab, Tab alone visits every enabled control
// (no table keeps the focus to itself) and each control has a name for screen readers; every tab
// opens with its Alt+letter from every other tab (no control of a page takes a tab's letter); the
// tray menu's items have letters of their own.
#include "../workspace/gitcli.h"
#include "enginemodel.h"
#include "engineprocess.h"
#include "hubprocess.h"
#include "mainwindow.h"
#include "pairedserver.h"
#include "sessionscontroller.h"
#include "trayapplication.h"

#include "core/paths.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextEdit>

using namespace isolation;
using namespace isolation::test;

namespace {
// The letter after a single '&' ("Save &all" → 'A'), or 0.
QChar mnemonic(const QString &text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text.at(i) == QLatin1Char('&')) {
            if (text.at(i + 1) != QLatin1Char('&'))
                return text.at(i + 1).toUpper();
            ++i;
        }
    }
    return {};
}

QString describe(const QWidget *w)
{
    return QStringLiteral("%1 \"%2\"").arg(QLatin1String(w->metaObject()->className()), w->objectName());
}

// What a screen reader announces for `w`: its accessible name (Qt falls back to a button's text
// and to the buddy label's).
QString spokenName(QWidget *w)
{
    QAccessibleInterface *a = QAccessible::queryAccessibleInterface(w);
    return a ? a->text(QAccessible::Name).trimmed() : QString();
}

bool isControl(const QWidget *w)
{
    if (qobject_cast<const QHeaderView *>(w))
        return false; // part of its view
    if (w->parentWidget() && qobject_cast<const QComboBox *>(w->parentWidget()))
        return false; // an editable combo box's line edit
    if (w->parentWidget() && qobject_cast<const QAbstractSpinBox *>(w->parentWidget()))
        return false;
    if (qobject_cast<const QAbstractButton *>(w) && w->parentWidget()
        && (qobject_cast<const QAbstractItemView *>(w->parentWidget())
            || qobject_cast<const QAbstractItemView *>(w->parentWidget()->parentWidget())))
        return false; // a view's corner button
    return qobject_cast<const QAbstractButton *>(w) || qobject_cast<const QComboBox *>(w)
        || qobject_cast<const QLineEdit *>(w) || qobject_cast<const QAbstractItemView *>(w)
        || qobject_cast<const QPlainTextEdit *>(w) || qobject_cast<const QTextEdit *>(w)
        || qobject_cast<const QAbstractSpinBox *>(w) || qobject_cast<const QTabBar *>(w);
}
} // namespace

class tst_TrayKeyboard final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void tabVisitsEveryNamedControl_data();
    void tabVisitsEveryNamedControl();
    void altLetterOpensEveryTab();
    void trayMenuItemsHaveLettersOfTheirOwn();

private:
    HubProcess m_hub;
    QTemporaryDir m_home;
    std::unique_ptr<EngineProcess> m_engine;
    std::unique_ptr<EngineModel> m_model;
    std::unique_ptr<TrayApplication> m_tray;
};

void tst_TrayKeyboard::initTestCase()
{
    QVERIFY(m_hub.start({}, {QStringLiteral("--poll-interval"), QStringLiteral("1")}));
    QVERIFY(pairServer(m_hub.appUrl(), m_home.path(), QStringLiteral("tray-keyboard")).has_value());
    QCOMPARE(m_hub.admin({QStringLiteral("workspace"), QStringLiteral("create"), QStringLiteral("demo")}), 0);
    m_engine = std::make_unique<EngineProcess>(m_home.path());
    m_engine->setHub(m_hub.appUrl().toString());
    QVERIFY(m_engine->start());
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_HOME"), m_home.path());
    m_model = std::make_unique<EngineModel>(Paths::resolve(env).value());
    m_model->connection().attach();
    QTRY_VERIFY_WITH_TIMEOUT(m_model->attached(), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(m_model->state(), EngineState::Online, 20000);
    m_tray = std::make_unique<TrayApplication>(*m_model);
    SessionsController *sessions = m_tray->sessions();
    QTRY_VERIFY(sessions->paired());
    QSignalSpy created(sessions, &SessionsController::created);
    sessions->createSession(QStringLiteral("demo"));
    QVERIFY(created.wait(60000));
    const QString id = created.first().first().toString();
    QTRY_VERIFY_WITH_TIMEOUT(sessions->snapshot(id) && sessions->snapshot(id)->state == api::SessionState::Ready, 30000);
    QVERIFY(GitCli::writeFile(sessions->snapshot(id)->workTree + QStringLiteral("/a.txt"), "a\n"));
    sessions->refresh(id);
    QTRY_VERIFY_WITH_TIMEOUT(sessions->snapshot(id)->changes.files.size() == 1, 20000);

    m_tray->showWindow();
    m_tray->window()->resize(960, 600);
    QVERIFY(QTest::qWaitForWindowActive(m_tray->window()));
    m_tray->window()->showTab(QStringLiteral("changesTab"), id);
}

void tst_TrayKeyboard::cleanupTestCase()
{
    m_tray.reset();
    m_model.reset();
    if (m_engine)
        QCOMPARE(m_engine->stop(), 0);
    m_engine.reset();
}

void tst_TrayKeyboard::tabVisitsEveryNamedControl_data()
{
    QTest::addColumn<QString>("tab");
    for (const char *tab : {"sessionsTab", "changesTab", "conflictsTab", "cacheTab", "runtimeTab", "activityTab"})
        QTest::newRow(tab) << QString::fromLatin1(tab);
}

void tst_TrayKeyboard::tabVisitsEveryNamedControl()
{
    QFETCH(QString, tab);
    MainWindow *window = m_tray->window();
    window->showTab(tab);
    QWidget *page = window->tabs()->currentWidget();
    QCOMPARE(page->objectName(), tab);
    QTest::qWait(200); // pages fill themselves from the engine's answers
    window->tabs()->tabBar()->setFocus(Qt::TabFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), window->tabs()->tabBar());

    // Tab alone, until the focus comes back to where it started.
    QList<QWidget *> visited {window->tabs()->tabBar()};
    for (int i = 0; i < 100; ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QWidget *now = QApplication::focusWidget();
        QVERIFY(now);
        if (now == visited.first())
            break;
        QVERIFY2(!visited.contains(now) || visited.last() != now,
            qPrintable(QStringLiteral("Tab keeps the focus in %1").arg(describe(now))));
        visited << now;
    }
    QVERIFY2(QApplication::focusWidget() == visited.first(), "Tab never came back to the tab bar");

    const QList<QWidget *> all = page->findChildren<QWidget *>() << window->tabs()->tabBar();
    for (QWidget *w : all) {
        if (!isControl(w) || !w->isVisibleTo(window) || !w->isEnabled())
            continue;
        QVERIFY2(visited.contains(w), qPrintable(QStringLiteral("Tab never reaches %1").arg(describe(w))));
        QVERIFY2(!spokenName(w).isEmpty(), qPrintable(QStringLiteral("%1 has no accessible name").arg(describe(w))));
    }
}

void tst_TrayKeyboard::altLetterOpensEveryTab()
{
    MainWindow *window = m_tray->window();
    QTabWidget *tabs = window->tabs();
    for (int from = 0; from < tabs->count(); ++from) {
        for (int to = 0; to < tabs->count(); ++to) {
            if (from == to)
                continue;
            tabs->setCurrentIndex(from);
            const QChar letter = mnemonic(tabs->tabText(to));
            QVERIFY2(!letter.isNull(), qPrintable(tabs->tabText(to)));
            QTest::keyClick(window, Qt::Key(letter.unicode()), Qt::AltModifier);
            QVERIFY2(tabs->currentIndex() == to,
                qPrintable(QStringLiteral("Alt+%1 on \"%2\" did not open \"%3\" (focus: %4)")
                               .arg(letter, tabs->tabText(from), tabs->tabText(to),
                                   QApplication::focusWidget() ? describe(QApplication::focusWidget()) : QString())));
        }
    }
}

void tst_TrayKeyboard::trayMenuItemsHaveLettersOfTheirOwn()
{
    QMenu *menu = m_tray->menu();
    QHash<QChar, QString> taken;
    for (QAction *a : menu->actions()) {
        if (a->isSeparator() || !a->isVisible() || !a->isEnabled())
            continue;
        const QChar letter = mnemonic(a->text());
        QVERIFY2(!letter.isNull(), qPrintable(QStringLiteral("\"%1\" has no letter").arg(a->text())));
        QVERIFY2(!taken.contains(letter),
            qPrintable(QStringLiteral("\"%1\" and \"%2\" share Alt+%3").arg(a->text(), taken.value(letter), letter)));
        taken.insert(letter, a->text());
    }
    // Each session's own menu too.
    for (QMenu *sub : menu->findChildren<QMenu *>()) {
        QHash<QChar, QString> own;
        for (QAction *a : sub->actions()) {
            if (a->isSeparator() || a->menu())
                continue;
            const QChar letter = mnemonic(a->text());
            QVERIFY2(!letter.isNull() && !own.contains(letter), qPrintable(a->text()));
            own.insert(letter, a->text());
        }
    }
}

QTEST_MAIN(tst_TrayKeyboard)
#include "tst_traykeyboard.moc"
