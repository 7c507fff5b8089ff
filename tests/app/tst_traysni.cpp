// The real isolation-tray on a desktop whose tray is the D-Bus StatusNotifierItem one (KDE, and
// GNOME with the AppIndicator extension), not XEmbed: a private session bus with a real
// StatusNotifierWatcher (status-notifier-watcher) and StatusNotifierHost (gtk-sni-tray-standalone) on Xvfb, and no
// XEmbed tray at all. The icon registers with the watcher, carries its pixmaps, title and tooltip,
// exports its menu over com.canonical.dbusmenu with the tray's entries, and a host's activation
// and menu clicks reach the tray: Activate opens the window, Settings… opens the settings.
// tst_desktop covers the XEmbed tray (trayer) beside this.
#include "desktopsession.h"
#include "engineprocess.h"
#include "hubprocess.h"

#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusObjectPath>
#include <QDBusVariant>
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace isolation::test;

namespace {

const QString kWatcher = QStringLiteral("org.kde.StatusNotifierWatcher");
const QString kItem = QStringLiteral("org.kde.StatusNotifierItem");
const QString kMenu = QStringLiteral("com.canonical.dbusmenu");

struct MenuEntry
{
    int id = 0;
    QString label; // as the host shows it: the mnemonic's '_' removed
    QList<MenuEntry> children;
};

// One (ia{sv}av) node of a dbusmenu layout.
MenuEntry readEntry(const QDBusArgument &arg)
{
    MenuEntry e;
    QVariantMap properties;
    arg.beginStructure();
    arg >> e.id >> properties;
    arg.beginArray();
    while (!arg.atEnd()) {
        QDBusVariant child;
        arg >> child;
        e.children.append(readEntry(child.variant().value<QDBusArgument>()));
    }
    arg.endArray();
    arg.endStructure();
    e.label = properties.value(QStringLiteral("label")).toString().remove(QLatin1Char('_'));
    return e;
}

void flatten(const MenuEntry &e, QList<MenuEntry> *out)
{
    out->append(e);
    for (const MenuEntry &c : e.children)
        flatten(c, out);
}

} // namespace

class tst_TraySni final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void iconRegistersWithTheWatcher();
    void menuIsExported();
    void activationOpensTheWindow();
    void menuClickOpensSettings();
    void quittingUnregisters();

private:
    QVariant property(const QString &service, const QString &path, const QString &interface, const QString &name);
    QStringList registeredItems();
    QDBusMessage call(const QString &path, const QString &interface, const QString &method, const QVariantList &args);
    QList<MenuEntry> menu();
    bool windowVisible(const QString &title) const;

    DesktopSession m_desktop;
    std::unique_ptr<HubProcess> m_hub;
    std::unique_ptr<EngineProcess> m_engine;
    QTemporaryDir m_home;
    QProcessEnvironment m_env;
    QProcess m_tray;
    std::unique_ptr<QDBusConnection> m_bus;
    QString m_service; // the item's bus name
    QString m_path; // and object path
};

void tst_TraySni::initTestCase()
{
    QString error;
    // A StatusNotifierItem host and no XEmbed tray (no trayer): the icon can only go the D-Bus way.
    QVERIFY2(m_desktop.start(DesktopSession::NotifierHost, &error), qPrintable(error));
    m_hub = std::make_unique<HubProcess>();
    QVERIFY(m_hub->start());
    m_env = m_desktop.environment();
    m_env.insert(QStringLiteral("ISOLATION_HOME"), m_home.path());
    m_env.insert(QStringLiteral("ISOLATION_HUB_URL"), m_hub->appUrl().toString());
    m_env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    m_env.remove(QStringLiteral("LANGUAGE"));
    // The engine first, so the tray attaches to it rather than starting one of its own.
    m_engine = std::make_unique<EngineProcess>(m_home.path());
    m_engine->environment() = m_env;
    m_engine->setRuntime(false);
    QVERIFY(m_engine->start());

    m_bus = std::make_unique<QDBusConnection>(QDBusConnection::connectToBus(
        m_env.value(QStringLiteral("DBUS_SESSION_BUS_ADDRESS")), QStringLiteral("tst_traysni")));
    QVERIFY2(m_bus->isConnected(), qPrintable(m_bus->lastError().message()));
    QVERIFY(registeredItems().isEmpty()); // nothing before the tray

    m_tray.setProcessEnvironment(m_env);
    m_tray.setProcessChannelMode(QProcess::ForwardedChannels);
    m_tray.start(trayBinary(), {});
    QVERIFY(m_tray.waitForStarted());
}

void tst_TraySni::cleanupTestCase()
{
    if (m_tray.state() != QProcess::NotRunning) {
        m_tray.terminate();
        if (!m_tray.waitForFinished(15000))
            m_tray.kill();
    }
    m_engine.reset();
    m_hub.reset();
    m_bus.reset();
    QDBusConnection::disconnectFromBus(QStringLiteral("tst_traysni"));
    m_desktop.stop();
}

QVariant tst_TraySni::property(
    const QString &service, const QString &path, const QString &interface, const QString &name)
{
    QDBusMessage get = QDBusMessage::createMethodCall(
        service, path, QStringLiteral("org.freedesktop.DBus.Properties"), QStringLiteral("Get"));
    get << interface << name;
    const QDBusMessage reply = m_bus->call(get, QDBus::Block, 5000);
    if (reply.type() != QDBusMessage::ReplyMessage) {
        qWarning().noquote() << "Get" << interface << name << "failed:" << reply.errorMessage();
        return {};
    }
    return reply.arguments().value(0).value<QDBusVariant>().variant();
}

QStringList tst_TraySni::registeredItems()
{
    return property(
        kWatcher, QStringLiteral("/StatusNotifierWatcher"), kWatcher, QStringLiteral("RegisteredStatusNotifierItems"))
        .toStringList();
}

QDBusMessage tst_TraySni::call(
    const QString &path, const QString &interface, const QString &method, const QVariantList &args)
{
    QDBusMessage m = QDBusMessage::createMethodCall(m_service, path, interface, method);
    m.setArguments(args);
    return m_bus->call(m, QDBus::Block, 5000);
}

QList<MenuEntry> tst_TraySni::menu()
{
    const QString path = property(m_service, m_path, kItem, QStringLiteral("Menu")).value<QDBusObjectPath>().path();
    if (path.isEmpty())
        return {};
    call(path, kMenu, QStringLiteral("AboutToShow"), {0}); // as a host does before it shows the menu
    const QDBusMessage layout
        = call(path, kMenu, QStringLiteral("GetLayout"), {0, -1, QStringList {QStringLiteral("label")}});
    if (layout.type() != QDBusMessage::ReplyMessage || layout.arguments().size() != 2) {
        qWarning().noquote() << "GetLayout failed:" << layout.errorMessage();
        return {};
    }
    QList<MenuEntry> all;
    flatten(readEntry(layout.arguments().at(1).value<QDBusArgument>()), &all);
    return all;
}

bool tst_TraySni::windowVisible(const QString &title) const
{
    return !m_desktop
                .run(QStringLiteral("xdotool"),
                    {QStringLiteral("search"), QStringLiteral("--onlyvisible"), QStringLiteral("--name"),
                        QLatin1Char('^') + title + QLatin1Char('$')})
                .trimmed()
                .isEmpty();
}

void tst_TraySni::iconRegistersWithTheWatcher()
{
    QStringList items;
    QTRY_VERIFY_WITH_TIMEOUT(!(items = registeredItems()).isEmpty(), 30000);
    QCOMPARE(items.size(), 1);
    // "SERVICE/PATH" (or a bare service, then the path is the specification's default)
    const QString item = items.first();
    const qsizetype slash = item.indexOf(QLatin1Char('/'));
    m_service = slash < 0 ? item : item.left(slash);
    m_path = slash < 0 ? QStringLiteral("/StatusNotifierItem") : item.mid(slash);

    QCOMPARE(property(m_service, m_path, kItem, QStringLiteral("Id")).toString(), QStringLiteral("isolation-tray"));
    QCOMPARE(property(m_service, m_path, kItem, QStringLiteral("Status")).toString(), QStringLiteral("Active"));
    // The tooltip says what the tray says (tr("Isolation: %1")).
    const QDBusArgument tip = property(m_service, m_path, kItem, QStringLiteral("ToolTip")).value<QDBusArgument>();
    QString iconName, title, text;
    tip.beginStructure();
    tip >> iconName;
    tip.beginArray();
    while (!tip.atEnd()) {
        tip.beginStructure();
        int w = 0, h = 0;
        QByteArray pixels;
        tip >> w >> h >> pixels;
        tip.endStructure();
    }
    tip.endArray();
    tip >> title >> text;
    tip.endStructure();
    const QString shown = title + QLatin1Char('|') + text;
    QVERIFY2(shown.contains(QStringLiteral("Isolation:")), qPrintable(shown));
    // The icon goes as pixels (ARGB32, big-endian): at least one size, each w × h × 4 bytes, not blank.
    const QDBusArgument pixmaps
        = property(m_service, m_path, kItem, QStringLiteral("IconPixmap")).value<QDBusArgument>();
    int sizes = 0;
    pixmaps.beginArray();
    while (!pixmaps.atEnd()) {
        int w = 0, h = 0;
        QByteArray pixels;
        pixmaps.beginStructure();
        pixmaps >> w >> h >> pixels;
        pixmaps.endStructure();
        QVERIFY(w > 0 && h > 0);
        QCOMPARE(pixels.size(), qsizetype(w) * h * 4);
        QVERIFY2(pixels.count(char(0)) < pixels.size(), "a blank icon");
        ++sizes;
    }
    pixmaps.endArray();
    QVERIFY(sizes >= 1);
    // With a D-Bus tray the window stays hidden, as with an XEmbed one.
    QVERIFY(!windowVisible(QStringLiteral("Isolation")));
}

void tst_TraySni::menuIsExported()
{
    QVERIFY(!m_service.isEmpty());
    QStringList labels;
    for (const MenuEntry &e : menu())
        labels << e.label;
    for (const QString &expected : {QStringLiteral("Pair this computer…"), QStringLiteral("Open Isolation…"),
             QStringLiteral("Settings…"), QStringLiteral("Stop the engine…"), QStringLiteral("Quit Isolation tray")})
        QVERIFY2(labels.contains(expected), qPrintable(labels.join(QStringLiteral(" | "))));
}

void tst_TraySni::activationOpensTheWindow()
{
    QVERIFY(!m_service.isEmpty());
    QVERIFY(!windowVisible(QStringLiteral("Isolation")));
    const QDBusMessage r = call(m_path, kItem, QStringLiteral("Activate"), {0, 0});
    QVERIFY2(r.type() == QDBusMessage::ReplyMessage, qPrintable(r.errorMessage()));
    QTRY_VERIFY_WITH_TIMEOUT(windowVisible(QStringLiteral("Isolation")), 10000);
}

void tst_TraySni::menuClickOpensSettings()
{
    QVERIFY(!m_service.isEmpty());
    int settings = -1;
    QStringList labels;
    for (const MenuEntry &e : menu()) {
        labels << QStringLiteral("%1 %2").arg(e.id).arg(e.label);
        if (e.label == QStringLiteral("Settings…"))
            settings = e.id;
    }
    QVERIFY2(settings > 0, qPrintable(labels.join(QStringLiteral(" | "))));
    QVERIFY(!windowVisible(QStringLiteral("Isolation settings")));
    const QString path = property(m_service, m_path, kItem, QStringLiteral("Menu")).value<QDBusObjectPath>().path();
    const QDBusMessage r = call(path, kMenu, QStringLiteral("Event"),
        {settings, QStringLiteral("clicked"), QVariant::fromValue(QDBusVariant(QString())), 0u});
    QVERIFY2(r.type() == QDBusMessage::ReplyMessage, qPrintable(r.errorMessage()));
    QTRY_VERIFY_WITH_TIMEOUT(windowVisible(QStringLiteral("Isolation settings")), 10000);
}

void tst_TraySni::quittingUnregisters()
{
    QVERIFY(!m_service.isEmpty());
    m_tray.terminate(); // a logout's SIGTERM, as Quit
    QVERIFY(m_tray.waitForFinished(30000));
    QCOMPARE(m_tray.exitStatus(), QProcess::NormalExit);
    QCOMPARE(m_tray.exitCode(), 0);
    // The watcher drops the item once its bus name is gone; the engine keeps running.
    QTRY_VERIFY_WITH_TIMEOUT(registeredItems().isEmpty(), 10000);
    QVERIFY(m_engine->running());
}

QTEST_GUILESS_MAIN(tst_TraySni)
#include "tst_traysni.moc"
