// isolation-tray: the product's face, a client of the user's engine (`isolation-server up`, a
// process of its own that this tray attaches to, or starts when none runs). One per display.
#include "singleinstance.h"
#include "core/translations.h"
#include "trayapplication.h"

#include "core/logging.h"
#include "core/paths.h"
#include "core/processhardening.h"
#include "core/signalwatcher.h"
#include "core/version.h"
#include "enginemodel.h"

#include <QApplication>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QRegularExpression>
#include <QMessageBox>

#include <cstdio>
#include <optional>

namespace {

// What the tray answers without a display: --version, --help, and a refusal to start headless.
// The exit code when it answered; nothing when the tray goes on.
std::optional<int> beforeQt(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--version" || arg == "-v") {
            std::printf("isolation-tray %s\n", ISOLATION_VERSION);
            return 0;
        }
        if (arg == "--help" || arg == "-h") {
            std::printf("Usage: isolation-tray\n\nThe Isolation tray: pairs this computer, shows sessions, changes, "
                        "conflicts,\n"
                        "the warm cache and the runtime. It is a window on the engine (`isolation-server up`),\n"
                        "which runs on its own: the tray attaches to it, or starts it when none runs.\n"
                        "Quitting the tray leaves the engine running; stop it from the tray's menu or with\n"
                        "`isolation-server down`.\n\n"
                        "One per display and state directory (ISOLATION_HOME); a second start on the same\n"
                        "display shows the first one's window.\n\n"
                        "Environment:\n"
                        "  ISOLATION_HOME         the engine's state directory (default: the XDG directories)\n"
                        "  ISOLATION_ENGINE_ARGS  the arguments of the engine the tray starts when none runs\n"
                        "                         (default: up; e.g. \"up --credential-store file\")\n");
            return 0;
        }
    }
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        std::fprintf(stderr,
            "isolation-tray: the tray needs a desktop session (no DISPLAY or WAYLAND_DISPLAY); "
            "on a headless machine run `isolation-server up` instead\n");
        return 1;
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char *argv[])
{
    // The tray holds no credential, but it shows what the engine says: no core dumps, no ptrace.
    if (auto hardened = isolation::hardenProcess(); !hardened)
        std::fprintf(stderr, "isolation-tray: warning: %s\n", qPrintable(hardened.error().message));
    // Answer --help and --version, and refuse a headless start, before Qt needs a display.
    if (const std::optional<int> done = beforeQt(argc, argv))
        return *done;
    // The tray's regular expressions check a few short strings: interpreting them costs nothing,
    // while PCRE2's JIT compiler is a quarter of a MiB of code touched for it.
    if (!qEnvironmentVariableIsSet("QT_ENABLE_REGEXP_JIT"))
        qputenv("QT_ENABLE_REGEXP_JIT", "0");
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("isolation-tray"));
    QApplication::setApplicationDisplayName(QStringLiteral("Isolation"));
    QApplication::setApplicationVersion(QStringLiteral(ISOLATION_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.isolation.Tray"));
    // The tray speaks the system's language where it has a catalogue (LANGUAGE, LC_ALL, LC_MESSAGES, LANG).
    const QString language = isolation::Translations::install();

    auto fail = [](const QString &message) {
        std::fprintf(stderr, "isolation-tray: %s\n", qPrintable(message));
        if (QGuiApplication::platformName() != QLatin1String("offscreen"))
            QMessageBox::critical(nullptr, QObject::tr("Isolation"), message);
        return 1;
    };

    auto paths = isolation::Paths::resolve();
    if (!paths)
        return fail(paths.error().message);
    if (auto s = paths.value().ensure(); !s)
        return fail(s.error().message);

    // One tray per display: a second start on the same display raises the first one's window; a
    // second display of the same user gets a tray of its own (both show the one engine).
    QString display = qEnvironmentVariable("WAYLAND_DISPLAY", qEnvironmentVariable("DISPLAY"));
    display.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    isolation::SingleInstance instance(paths.value().runtimeDir() + QStringLiteral("/tray")
        + (display.isEmpty() ? QString() : QLatin1Char('-') + display) + QStringLiteral(".sock"));
    if (instance.notifyRunning()) {
        std::fprintf(stderr, "isolation-tray: already running; raised its window\n");
        return 0;
    }
    if (!instance.listen())
        return fail(QObject::tr("Cannot start the tray: %1").arg(instance.errorString()));

    // A session logout or `kill` closes the tray the same way Quit does (the engine stays).
    isolation::SignalWatcher signals;
    QObject::connect(&signals, &isolation::SignalWatcher::terminationRequested, &app, &QApplication::quit);

    // The tray's own log beside the engine's (engine.log is the engine's alone).
    isolation::logging::install(QFileInfo(paths.value().logFile()).absolutePath() + QStringLiteral("/tray.log"));
    qCInfo(lcCore).noquote() << "tray language:" << language;
    isolation::EngineModel engine(paths.value());
    // The engine this tray starts when none answers: `isolation-server up` by default; tests and
    // headless desktops give its arguments (e.g. "up --credential-store file").
    if (const QString args = qEnvironmentVariable("ISOLATION_ENGINE_ARGS"); !args.trimmed().isEmpty())
        engine.connection().setProgram(engine.connection().program(), QProcess::splitCommand(args));
    isolation::TrayApplication tray(engine);
    // The user's own engine is started through the systemd user unit where there is one; a tray
    // pointed at another state directory or other arguments, or run from a build tree (its engine is
    // not the isolation-server on PATH, which the unit runs), starts its engine itself.
    const QString onPath
        = QFileInfo(QStandardPaths::findExecutable(QStringLiteral("isolation-server"))).canonicalFilePath();
    tray.setStartThroughUnit(qEnvironmentVariableIsEmpty("ISOLATION_HOME")
        && qEnvironmentVariable("ISOLATION_ENGINE_ARGS").trimmed().isEmpty() && !onPath.isEmpty()
        && QFileInfo(engine.connection().program()).canonicalFilePath() == onPath);
    QObject::connect(&instance, &isolation::SingleInstance::raiseRequested, &tray, [&tray] {
        qCInfo(lcCore) << "another start of the tray asked to raise the window";
        tray.showWindow();
    });
    tray.show();
    engine.connection().attach();
    const int rc = QApplication::exec();
    isolation::logging::uninstall();
    return rc;
}
