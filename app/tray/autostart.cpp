#include "autostart.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <utility>

namespace isolation {

namespace {

const QString kUnit = QStringLiteral("isolation-server.service");

QString autostartDir()
{
    // The spec: a relative XDG_CONFIG_HOME is invalid and must be ignored.
    QString base = qEnvironmentVariable("XDG_CONFIG_HOME");
    if (base.isEmpty() || QDir::isRelativePath(base))
        base = QDir::homePath() + QStringLiteral("/.config");
    return base + QStringLiteral("/autostart");
}

// Whether a desktop session will start this entry: it exists and is neither hidden nor switched
// off (GNOME writes X-GNOME-Autostart-enabled=false when the member turns it off there).
bool entryStarts(const QString &file)
{
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly | QIODevice::Text))
        return false;
    bool inMainGroup = false;
    while (!in.atEnd()) {
        const QByteArray line = in.readLine().trimmed();
        if (line.startsWith('['))
            inMainGroup = line == "[Desktop Entry]";
        else if (inMainGroup && (line == "Hidden=true" || line == "X-GNOME-Autostart-enabled=false"))
            return false;
    }
    return true;
}

QString program(const QString &set, const QString &name)
{
    if (!set.isEmpty())
        return set;
    const QString beside = QCoreApplication::applicationDirPath() + QLatin1Char('/') + name;
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(name);
}

Status writeEntry(const QString &file, const QByteArray &entry)
{
    if (!QDir().mkpath(QFileInfo(file).path()))
        return Error::failed(Autostart::tr("Cannot create the folder %1").arg(QFileInfo(file).path()));
    // Atomic: a desktop session reading the folder at login never sees half an entry.
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(entry) != entry.size() || !out.commit())
        return Error::failed(Autostart::tr("Cannot write %1: %2").arg(file, out.errorString()));
    return {};
}

Status removeEntry(const QString &file)
{
    if (QFileInfo::exists(file) && !QFile::remove(file))
        return Error::failed(Autostart::tr("Cannot remove %1").arg(file));
    return {};
}

} // namespace

Autostart::Autostart(QObject *parent)
    : QObject(parent)
{ }

QString Autostart::engineEntryFile()
{
    return autostartDir() + QStringLiteral("/io.isolation.Engine.desktop");
}

QString Autostart::trayEntryFile()
{
    return autostartDir() + QStringLiteral("/io.isolation.Tray.desktop");
}

QString Autostart::engineProgram() const
{
    return program(m_engineProgram, QStringLiteral("isolation-server"));
}

QString Autostart::trayProgram() const
{
    return program(m_trayProgram, QStringLiteral("isolation-tray"));
}

QString Autostart::execArgument(const QString &arg)
{
    // Desktop Entry spec, "The Exec key": an argument with a reserved character is quoted, and
    // inside the quotes " ` $ \ take a backslash; then the string escape doubles each backslash.
    // A literal % is %% everywhere.
    static const QString reserved = QStringLiteral(" \t\n\"'\\><~|&;$*?#()`");
    QString s = arg;
    s.replace(QLatin1Char('%'), QStringLiteral("%%"));
    const bool quote = std::any_of(s.cbegin(), s.cend(), [](QChar c) { return reserved.contains(c); });
    if (!quote)
        return s;
    QString quoted;
    for (const QChar c : s) {
        if (c == QLatin1Char('"') || c == QLatin1Char('`') || c == QLatin1Char('$'))
            quoted += QLatin1Char('\\');
        else if (c == QLatin1Char('\\'))
            quoted += QStringLiteral("\\\\\\"); // \\ for the quoting, doubled by the string escape
        quoted += c;
    }
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

void Autostart::refresh()
{
    if (m_state == State::Probing)
        return;
    m_state = State::Probing;
    if (QStandardPaths::findExecutable(m_systemctl).isEmpty() && !QFileInfo(m_systemctl).isExecutable()) {
        // No systemd on this desktop: answer on the next turn of the loop, as systemctl would.
        QTimer::singleShot(0, this, [this] { probed(QStringLiteral("autostart"), false); });
        return;
    }
    // A user manager answers show-environment; without one (a container, a session started
    // without systemd) systemctl cannot reach the bus and fails.
    runSystemctl({QStringLiteral("show-environment")}, [this](const Run &manager) {
        if (manager.exitCode != 0)
            return probed(QStringLiteral("autostart"), false);
        // The unit is installed with the package; a build run from its tree has none.
        runSystemctl({QStringLiteral("cat"), kUnit}, [this](const Run &unit) {
            if (unit.exitCode != 0)
                return probed(QStringLiteral("autostart"), false);
            runSystemctl({QStringLiteral("is-enabled"), kUnit}, [this](const Run &state) {
                // is-enabled exits non-zero for "disabled"; what it prints is the answer.
                const QString s = state.out.trimmed();
                probed(QStringLiteral("systemd"),
                    s == QLatin1String("enabled") || s == QLatin1String("enabled-runtime"));
            });
        });
    });
}

void Autostart::probed(const QString &mechanism, bool enabled)
{
    m_mechanism = mechanism;
    m_unitEnabled = enabled;
    m_state = State::Ready;
    const auto waiting = std::exchange(m_waiting, {});
    for (const auto &then : waiting)
        then();
    Q_EMIT changed();
}

void Autostart::whenReady(std::function<void()> then)
{
    if (m_state == State::Ready)
        return then();
    m_waiting.push_back(std::move(then));
    refresh();
}

QString Autostart::engineMechanism() const
{
    return m_state == State::Ready ? m_mechanism : QString();
}

bool Autostart::engineAtLogin() const
{
    if (m_state == State::Ready && m_mechanism == QLatin1String("systemd"))
        return m_unitEnabled;
    return entryStarts(engineEntryFile());
}

void Autostart::setEngineAtLogin(bool on, std::function<void(Status)> done)
{
    whenReady([this, on, done = std::move(done)]() mutable {
        if (m_mechanism == QLatin1String("systemd")) {
            const QString verb = on ? QStringLiteral("enable") : QStringLiteral("disable");
            runSystemctl({verb, kUnit}, [this, on, verb, done = std::move(done)](const Run &run) mutable {
                if (run.exitCode != 0) {
                    return finish(std::move(done),
                        Error::failed(tr("systemctl --user %1 %2 failed: %3").arg(verb, kUnit, run.error)));
                }
                m_unitEnabled = on;
                // An entry from a time without the unit would start the engine at login regardless
                // (a second one, or one the member just switched off).
                Status status = removeEntry(engineEntryFile());
                Q_EMIT changed();
                finish(std::move(done), std::move(status));
            });
            return;
        }
        Status status = removeEntry(engineEntryFile());
        if (on && status.ok()) {
            const QString engine = engineProgram();
            if (engine.isEmpty()) {
                status = Error::notFound(tr("Cannot find isolation-server beside this program or on PATH"));
            } else {
                const QByteArray entry = "[Desktop Entry]\n"
                                         "Type=Application\n"
                                         "Name=Isolation engine\n"
                                         "Comment=Connects this computer to Isolation (isolation-server up)\n"
                                         "Exec="
                    + execArgument(engine).toUtf8()
                    + " up\n"
                      "Terminal=false\n"
                      "NoDisplay=true\n"
                      "StartupNotify=false\n"
                      "X-GNOME-Autostart-enabled=true\n";
                status = writeEntry(engineEntryFile(), entry);
            }
        }
        Q_EMIT changed();
        finish(std::move(done), std::move(status));
    });
}

void Autostart::startEngineUnit(std::function<void(Status)> done)
{
    whenReady([this, done = std::move(done)]() mutable {
        if (m_mechanism != QLatin1String("systemd"))
            return finish(std::move(done), Error::notFound(tr("no systemd user unit for the engine here")));
        runSystemctl({QStringLiteral("start"), kUnit}, [this, done = std::move(done)](const Run &run) mutable {
            if (run.exitCode != 0)
                return finish(
                    std::move(done), Error::failed(tr("systemctl --user start %1 failed: %2").arg(kUnit, run.error)));
            finish(std::move(done), {});
        });
    });
}

bool Autostart::trayAtLogin() const
{
    return entryStarts(trayEntryFile());
}

Status Autostart::setTrayAtLogin(bool on)
{
    Status status = removeEntry(trayEntryFile());
    if (on && status.ok()) {
        const QString tray = trayProgram();
        if (tray.isEmpty()) {
            status = Error::notFound(tr("Cannot find isolation-tray beside this program or on PATH"));
        } else {
            const QByteArray entry = "[Desktop Entry]\n"
                                     "Type=Application\n"
                                     "Name=Isolation\n"
                                     "Comment=Run Isolation sandboxes for AI agents on this computer\n"
                                     "Exec="
                + execArgument(tray).toUtf8()
                + "\n"
                  "Icon=io.isolation.Tray\n"
                  "Terminal=false\n"
                  "StartupNotify=false\n"
                  "X-GNOME-Autostart-enabled=true\n";
            status = writeEntry(trayEntryFile(), entry);
        }
    }
    Q_EMIT changed();
    return status;
}

void Autostart::runSystemctl(const QStringList &args, std::function<void(const Run &)> then)
{
    auto *process = new QProcess(this);
    auto *timer = new QTimer(process);
    timer->setSingleShot(true);
    timer->setTimerType(Qt::PreciseTimer);
    // One answer per call, whichever comes first: the end, a failure to start, or the timeout. The
    // process object goes when the process has ended (after a kill too), never while it runs.
    auto answer = std::make_shared<std::function<void(const Run &)>>(std::move(then));
    auto reply = [answer, timer](const Run &run) {
        timer->stop();
        if (const auto then = std::exchange(*answer, nullptr))
            then(run);
    };
    const QString command = QStringLiteral("systemctl --user ") + args.join(QLatin1Char(' '));
    connect(process, &QProcess::finished, this, [process, reply, command](int code, QProcess::ExitStatus status) {
        process->deleteLater();
        Run run;
        run.out = QString::fromUtf8(process->readAllStandardOutput());
        const QString err = QString::fromUtf8(process->readAllStandardError()).trimmed();
        run.exitCode = status == QProcess::NormalExit ? code : -1;
        run.error = !err.isEmpty() ? err
            : status == QProcess::NormalExit
            ? tr("%1 exited with code %2").arg(command).arg(code)
            : tr("%1 crashed").arg(command);
        reply(run);
    });
    connect(process, &QProcess::errorOccurred, this, [process, reply, command](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return; // the end is reported by finished()
        process->deleteLater();
        reply({-1, {}, tr("Cannot run %1: %2").arg(command, process->errorString())});
    });
    connect(timer, &QTimer::timeout, this, [this, process, reply, command] {
        reply({-1, {}, tr("%1 did not answer within %n second(s)", nullptr, (m_timeoutMs + 999) / 1000).arg(command)});
        process->kill(); // finished() follows, and deletes it
    });
    timer->start(m_timeoutMs);
    process->start(m_systemctl, QStringList{QStringLiteral("--user")} + args);
}

void Autostart::finish(std::function<void(Status)> done, Status status)
{
    if (!done)
        return;
    // Never from inside setEngineAtLogin(): the caller may not expect re-entrance.
    QTimer::singleShot(0, this, [done = std::move(done), status = std::move(status)] { done(status); });
}

} // namespace isolation
