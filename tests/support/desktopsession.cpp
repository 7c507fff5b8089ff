#include "desktopsession.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDebug>
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QThread>

#include <csignal>
#include <functional>

namespace isolation::test {

DesktopSession::DesktopSession() = default;

DesktopSession::~DesktopSession()
{
    stop();
}

void DesktopSession::stop()
{
    m_display = nullptr;
    while (!m_processes.empty()) {
        std::unique_ptr<QProcess> p = std::move(m_processes.back());
        m_processes.pop_back();
        if (p->state() == QProcess::NotRunning)
            continue;
        ::kill(pid_t(p->processId()), SIGTERM);
        if (!p->waitForFinished(5000)) {
            p->kill();
            p->waitForFinished();
        }
    }
}

QString DesktopSession::home() const
{
    return m_env.value(QStringLiteral("HOME"));
}

bool DesktopSession::waitFor(const std::function<bool()> &ready, int timeoutMs) const
{
    QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        if (ready())
            return true;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(50);
    }
    return ready();
}

QProcess *DesktopSession::launch(const QString &program, const QStringList &args, QString *error)
{
    if (QStandardPaths::findExecutable(program).isEmpty()) {
        *error = QStringLiteral("%1 is not installed (./dev setup installs it)").arg(program);
        return nullptr;
    }
    auto p = std::make_unique<QProcess>();
    p->setProcessEnvironment(m_env);
    p->setProcessChannelMode(QProcess::SeparateChannels);
    p->start(program, args);
    if (!p->waitForStarted()) {
        *error = QStringLiteral("%1 did not start: %2").arg(program, p->errorString());
        return nullptr;
    }
    m_processes.push_back(std::move(p));
    return m_processes.back().get();
}

bool DesktopSession::start(int parts, QString *error)
{
    m_root = std::make_unique<QTemporaryDir>();
    const QString home = m_root->path() + QStringLiteral("/home");
    const QString runtime = m_root->path() + QStringLiteral("/run");
    if (!QDir().mkpath(home) || !QDir().mkpath(runtime)) {
        *error = QStringLiteral("cannot create the desktop's directories");
        return false;
    }
    QFile::setPermissions(runtime, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    m_env = QProcessEnvironment::systemEnvironment();
    m_env.insert(QStringLiteral("HOME"), home);
    m_env.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtime);
    m_env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/.local/share"));
    m_env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/.config"));
    m_env.insert(QStringLiteral("XDG_CACHE_HOME"), home + QStringLiteral("/.cache"));
    m_env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    m_env.remove(QStringLiteral("DISPLAY"));
    m_env.remove(QStringLiteral("WAYLAND_DISPLAY"));

    if ((parts & Bus) == Bus && !startBus(error))
        return false;
    if ((parts & Keyring) == Keyring && !startKeyring(error))
        return false;
    if ((parts & Display) == Display && !startDisplay(error))
        return false;
    if ((parts & TrayHost) == TrayHost && !startTrayHost(error))
        return false;
    if ((parts & NotifierHost) == NotifierHost) {
        // The StatusNotifierWatcher first, on its own: gtk-sni-tray-standalone's --watcher starts one
        // in its own process but may register its host before the name is taken, and then exits
        // ("org.kde.StatusNotifierWatcher was not provided by any .service files"; once in CI).
        QProcess *watcher = launch(QStringLiteral("status-notifier-watcher"), {}, error);
        if (!watcher)
            return false;
        if (!waitFor(
                [this, watcher] {
                    return watcher->state() == QProcess::NotRunning
                        || run(QStringLiteral("dbus-send"),
                            {QStringLiteral("--session"), QStringLiteral("--print-reply"),
                                QStringLiteral("--dest=org.freedesktop.DBus"), QStringLiteral("/"),
                                QStringLiteral("org.freedesktop.DBus.NameHasOwner"),
                                QStringLiteral("string:org.kde.StatusNotifierWatcher")})
                               .contains("boolean true");
                },
                15000)
            || watcher->state() == QProcess::NotRunning) {
            *error
                = QStringLiteral("status-notifier-watcher did not take org.kde.StatusNotifierWatcher within 15 s: %1")
                      .arg(QString::fromLocal8Bit(watcher->readAllStandardError().right(2000)));
            return false;
        }
        QProcess *host = launch(QStringLiteral("gtk-sni-tray-standalone"),
            {QStringLiteral("--top"), QStringLiteral("--end"), QStringLiteral("-s"), QStringLiteral("32")}, error);
        if (!host)
            return false;
        // Items are shown once the watcher says a host registered (Qt asks exactly this). GTK's
        // start under the whole suite's load took more than 15 s once in CI: wait up to a minute,
        // and stop at once (saying why) if the host exits.
        if (!waitFor(
                [this, host] {
                    if (host->state() == QProcess::NotRunning)
                        return true;
                    return run(QStringLiteral("dbus-send"),
                        {QStringLiteral("--session"), QStringLiteral("--print-reply"),
                            QStringLiteral("--dest=org.kde.StatusNotifierWatcher"),
                            QStringLiteral("/StatusNotifierWatcher"),
                            QStringLiteral("org.freedesktop.DBus.Properties.Get"),
                            QStringLiteral("string:org.kde.StatusNotifierWatcher"),
                            QStringLiteral("string:IsStatusNotifierHostRegistered")})
                        .contains("boolean true");
                },
                60000)
            || host->state() == QProcess::NotRunning) {
            *error = QStringLiteral(
                "gtk-sni-tray-standalone registered no StatusNotifierHost within 60 s (%1); it said: %2")
                         .arg(host->state() == QProcess::NotRunning
                                 ? QStringLiteral("it exited with %1").arg(host->exitCode())
                                 : QStringLiteral("still running"),
                             QString::fromLocal8Bit(host->readAllStandardError().right(2000)));
            return false;
        }
    }
    if ((parts & Notifications) == Notifications) {
        if (!launch(QStringLiteral("dunst"), {}, error))
            return false;
        if (!waitFor(
                [this] {
                    int rc = -1;
                    run(QStringLiteral("dunstctl"), {QStringLiteral("is-paused")}, &rc);
                    return rc == 0;
                },
                15000)) {
            *error = QStringLiteral("dunst did not take the notification service");
            return false;
        }
    }
    return true;
}

bool DesktopSession::startBus(QString *error)
{
    const QString runtime = m_env.value(QStringLiteral("XDG_RUNTIME_DIR"));
    QProcess *bus = launch(QStringLiteral("dbus-daemon"),
        {QStringLiteral("--session"), QStringLiteral("--nofork"), QStringLiteral("--print-address=1"),
            QStringLiteral("--address=unix:path=%1/bus").arg(runtime)},
        error);
    if (!bus)
        return false;
    if (!waitFor([bus] { return bus->canReadLine() || bus->waitForReadyRead(50); }, 10000)) {
        *error = QStringLiteral("dbus-daemon printed no address");
        return false;
    }
    const QByteArray address = bus->readLine().trimmed();
    if (!address.startsWith("unix:")) {
        *error = QStringLiteral("dbus-daemon printed an odd address: %1").arg(QString::fromUtf8(address));
        return false;
    }
    m_env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QString::fromUtf8(address));
    return true;
}

bool DesktopSession::startKeyring(QString *error)
{
    QProcess *keyring = launch(QStringLiteral("gnome-keyring-daemon"),
        {QStringLiteral("--foreground"), QStringLiteral("--unlock"), QStringLiteral("--components=secrets")}, error);
    if (!keyring)
        return false;
    keyring->write("test-password");
    keyring->closeWriteChannel();
    // The daemon owns org.freedesktop.secrets once it is ready.
    const bool ready = waitFor(
        [this] {
            return run(QStringLiteral("dbus-send"),
                {QStringLiteral("--session"), QStringLiteral("--print-reply"),
                    QStringLiteral("--dest=org.freedesktop.DBus"), QStringLiteral("/org/freedesktop/DBus"),
                    QStringLiteral("org.freedesktop.DBus.NameHasOwner"),
                    QStringLiteral("string:org.freedesktop.secrets")})
                .contains("boolean true");
        },
        15000);
    if (!ready)
        *error = QStringLiteral("gnome-keyring-daemon did not take org.freedesktop.secrets");
    return ready;
}

bool DesktopSession::startTrayHost(QString *error)
{
    // trayer has exited at start with "cannot open display" right after xdpyinfo had opened the
    // same display, three times in CI under the whole suite's load (twice with the lowest free
    // display number, once with this process's own; Xvfb ran without -noreset then). Once more,
    // then, saying so, before giving up with what the display's server said.
    for (int attempt = 1;; ++attempt) {
        QProcess *trayer = launch(QStringLiteral("trayer"),
            {QStringLiteral("--edge"), QStringLiteral("top"), QStringLiteral("--align"), QStringLiteral("right"),
                QStringLiteral("--widthtype"), QStringLiteral("request"), QStringLiteral("--height"),
                QStringLiteral("24"), QStringLiteral("--SetDockType"), QStringLiteral("true")},
            error);
        if (!trayer)
            return false;
        // trayer maps its window once it owns the tray selection. Under the whole suite's load
        // (two tests with desktops at once) 15 s were once not enough: wait up to a minute, and
        // stop at once (saying why) if it exits.
        if (waitFor(
                [this, trayer] {
                    return trayer->state() == QProcess::NotRunning
                        || !run(QStringLiteral("xdotool"),
                            {QStringLiteral("search"), QStringLiteral("--classname"), QStringLiteral("trayer")})
                                .trimmed()
                                .isEmpty();
                },
                60000)
            && trayer->state() == QProcess::Running)
            return true;
        const bool exited = trayer->state() == QProcess::NotRunning;
        const QString said = QString::fromLocal8Bit(trayer->readAllStandardError().right(2000));
        const QString server = !m_display ? QStringLiteral("no Xvfb")
            : m_display->state() == QProcess::Running
            ? QStringLiteral("Xvfb running")
            : QStringLiteral("Xvfb exited with %1: %2")
                  .arg(m_display->exitCode())
                  .arg(QString::fromLocal8Bit(m_display->readAllStandardError().right(2000)));
        if (exited && attempt == 1 && said.contains(QLatin1String("cannot open display"))) {
            qWarning().noquote() << "trayer could not open" << m_env.value(QStringLiteral("DISPLAY")) << "(" << server
                                 << "); starting it once more";
            if (m_display && m_display->state() != QProcess::Running && !startDisplay(error))
                return false;
            continue;
        }
        *error = QStringLiteral("trayer did not map its window within 60 s (%1; %2): %3")
                     .arg(exited ? QStringLiteral("it exited with %1").arg(trayer->exitCode())
                                 : QStringLiteral("still running"),
                         server, said);
        return false;
    }
}

bool DesktopSession::startDisplay(QString *error)
{
    // A display number of this process's own: with the lowest free one (Xvfb's -displayfd choice),
    // a test could take the number another test's desktop had just given up, and that server, going
    // away, unlinked the socket the new one had made (twice in CI: trayer "cannot open display :1"
    // right after xdpyinfo had opened it). The display is still checked with xdpyinfo, and a number
    // in use or a server that cannot be reached is replaced by the next.
    const int base = 100 + int(QCoreApplication::applicationPid() % 4000) * 4;
    for (int attempt = 1;; ++attempt) {
        // -displayfd: the server prints the display's number once it accepts clients.
        QProcess *x = launch(QStringLiteral("Xvfb"),
            {QStringLiteral(":%1").arg(base + attempt), QStringLiteral("-displayfd"), QStringLiteral("1"),
                QStringLiteral("-screen"), QStringLiteral("0"), QStringLiteral("1280x800x24"),
                // -noreset: no server reset when the last client (xdpyinfo below) leaves, just as
                // the next one (trayer) connects.
                QStringLiteral("-nolisten"), QStringLiteral("tcp"), QStringLiteral("-noreset")},
            error);
        if (!x)
            return false;
        // The number and its newline come in two writes: wait for the whole line, not for data.
        if (!waitFor(
                [x] {
                    if (!x->canReadLine() && x->state() == QProcess::Running)
                        x->waitForReadyRead(50);
                    return x->canReadLine() || x->state() == QProcess::NotRunning;
                },
                15000)
            || !x->canReadLine()) {
            x->kill();
            x->waitForFinished(5000);
            const QString said = QString::fromUtf8(x->readAllStandardError()).right(2000);
            if (attempt < 3) {
                qWarning().noquote() << "Xvfb on" << base + attempt << "reported no display (" << x->exitStatus()
                                     << x->exitCode() << "):" << said;
                continue; // that number is in use
            }
            *error = QStringLiteral("Xvfb did not report a display: %1").arg(said);
            return false;
        }
        bool ok = false;
        const int display = x->readLine().trimmed().toInt(&ok);
        if (!ok) {
            *error = QStringLiteral("Xvfb reported no display number");
            return false;
        }
        const QString name = QStringLiteral(":%1").arg(display);
        const bool opens = waitFor(
                               [this, x, &name] {
                                   int rc = -1;
                                   run(QStringLiteral("xdpyinfo"), {QStringLiteral("-display"), name}, &rc);
                                   return rc == 0 || x->state() == QProcess::NotRunning;
                               },
                               5000)
            && x->state() == QProcess::Running;
        if (opens) {
            m_display = x;
            m_env.insert(QStringLiteral("DISPLAY"), name);
            m_env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
            return true;
        }
        x->kill();
        x->waitForFinished(5000);
        if (attempt == 3) {
            *error = QStringLiteral("no client could open the display Xvfb reported (%1), three times").arg(name);
            return false;
        }
    }
}

void DesktopSession::enterThisProcess() const
{
    for (const QString &key : m_env.keys())
        qputenv(key.toUtf8().constData(), m_env.value(key).toUtf8());
}

QByteArray DesktopSession::run(const QString &program, const QStringList &args, int *exitCode, int timeoutMs) const
{
    QProcess p;
    p.setProcessEnvironment(m_env);
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        if (exitCode)
            *exitCode = -1;
        return {};
    }
    if (exitCode)
        *exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return p.readAllStandardOutput();
}

bool DesktopSession::screenshot(const QString &path) const
{
    int rc = -1;
    run(QStringLiteral("import"), {QStringLiteral("-window"), QStringLiteral("root"), path}, &rc, 30000);
    return rc == 0 && QFile::exists(path);
}

} // namespace isolation::test
