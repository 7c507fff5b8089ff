// isolation-server: the engine without a face. `up` runs it (handed over to the engine program,
// handover.h); every other verb is a LocalAPI client.
#include "command.h"
#include "exitcodes.h"
#include "output.h"

#include "core/eventdispatcher.h"
#include "core/processhardening.h"
#include "core/version.h"

#include <QCoreApplication>

#include <cstdio>

namespace {

QString helpText(const QList<isolation::Command> &commands)
{
    QString text
        = QStringLiteral("Usage: isolation-server <command> [options]\n"
                         "\n"
                         "Isolation Connected Server, headless. `up` runs the engine; the other commands talk to the\n"
                         "running engine through its LocalAPI socket.\n"
                         "\n"
                         "Commands:\n");
    for (const auto &c : commands)
        text += QStringLiteral("  %1\n      %2\n").arg(c.synopsis, -40).arg(c.summary);
    text += QStringLiteral("\n"
                           "Options:\n"
                           "  -h, --help       Show this help (or a command's: isolation-server COMMAND --help).\n"
                           "  -v, --version    Show the version.\n"
                           "\n"
                           "Environment:\n"
                           "  ISOLATION_HOME   Keep this engine's config, data, cache and socket under this directory\n"
                           "                   (default: the XDG base directories).\n"
                           "\n"
                           "Exit codes:\n"
                           "  0  success\n"
                           "  1  the operation failed (the message says why)\n"
                           "  2  bad command line\n"
                           "  3  no engine is running for this state directory\n"
                           "  4  another engine already owns this state directory\n"
                           "  5  the pairing was denied (or too many wrong codes were tried)\n"
                           "  6  the pairing code expired before it was approved\n"
                           "  7  this computer is not paired\n"
                           "  8  the workspace moved on: another save reached the hub first; nothing was written\n"
                           "     (sync, then save again)\n"
                           "  9  conflict: the sync stopped (or left markers with --resolve) on conflicting files,\n"
                           "     or a save found main and the session conflicting (sync first)\n"
                           "  10  refused as things stand: finish of a session with unsaved work (save, or\n"
                           "      --discard), suspend or resume of a sandbox not in that state, a session whose\n"
                           "      worktree is gone (restore it, or finish it), a cache entry in use\n"
                           "  11  the disk: full, read-only or not writable by this user (the message names the\n"
                           "      path and what to do; nothing was lost)\n"
                           "  130  interrupted (Ctrl-C)\n");
    return text;
}

} // namespace

int main(int argc, char *argv[])
{
    // Before anything is read: a verb may carry a pairing code or workspace data. (The engine
    // program hardens itself again: an exec undoes it.)
    if (auto hardened = isolation::hardenProcess(); !hardened)
        std::fprintf(stderr, "isolation-server: warning: %s\n", qPrintable(hardened.error().message));
    QCoreApplication app = isolation::makeWithUnixEventDispatcher<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("isolation-server"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ISOLATION_VERSION));

    QList<isolation::Command> commands = isolation::engineCommands() + isolation::pairingCommands()
        + isolation::runtimeCommands() + isolation::workspaceCommands() + isolation::sandboxCommands()
        + isolation::cacheCommands() + isolation::bugReportCommands();
    const QStringList args = QCoreApplication::arguments().mid(1);
    if (args.isEmpty())
        return isolation::out::usage(QStringLiteral("missing command"));
    const QString &first = args.first();
    if (first == QLatin1String("--help") || first == QLatin1String("-h") || first == QLatin1String("help")) {
        isolation::out::line(helpText(commands).trimmed());
        return isolation::exitcode::Ok;
    }
    if (first == QLatin1String("--version") || first == QLatin1String("-v") || first == QLatin1String("version")) {
        isolation::out::line(QStringLiteral("isolation-server %1").arg(QStringLiteral(ISOLATION_VERSION)));
        return isolation::exitcode::Ok;
    }
    for (const auto &c : std::as_const(commands)) {
        if (c.name == first) {
            QStringList verbArgs = args;
            verbArgs.first() = QStringLiteral("isolation-server ") + first; // QCommandLineParser skips argv[0]
            return c.run(verbArgs);
        }
    }
    return isolation::out::usage(QStringLiteral("unknown command '%1'").arg(first));
}
