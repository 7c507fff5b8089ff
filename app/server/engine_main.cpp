// isolation-engine: the engine program, in libexec/isolation/. `isolation-server up` and
// `isolation-server bugreport` hand over to it (handover.h); it is not meant to be run by hand.
#include "engineverbs.h"
#include "exitcodes.h"
#include "output.h"

#include "core/eventdispatcher.h"
#include "core/helperprograms.h"
#include "core/processhardening.h"
#include "core/version.h"
#include "crypto/opensslinit.h"

#include <QCoreApplication>

#include <cstdio>

int main(int argc, char *argv[])
{
    // Before anything is read: `up` holds the server credential and member key.
    if (auto hardened = isolation::hardenProcess(); !hardened)
        std::fprintf(stderr, "isolation-server: warning: %s\n", qPrintable(hardened.error().message));
    // Before any thread may use OpenSSL (opensslinit.h says why it is never torn down).
    if (!isolation::initOpenSslForProcess())
        std::fprintf(stderr, "isolation-server: warning: OpenSSL could not be initialised\n");
    QCoreApplication app = isolation::makeWithUnixEventDispatcher<QCoreApplication>(argc, argv);
    // The engine's name, as everything it writes and every path it derives has always said.
    QCoreApplication::setApplicationName(QStringLiteral("isolation-server"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ISOLATION_VERSION));
    // The other helper programs (the keychain helper, the pseudo-terminal relay) are beside this one.
    isolation::helpers::setDirectory(QCoreApplication::applicationDirPath());

    const QStringList args = QCoreApplication::arguments().mid(1);
    const QString first = args.value(0);
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        isolation::out::line(QStringLiteral("isolation-server %1").arg(QStringLiteral(ISOLATION_VERSION)));
        return isolation::exitcode::Ok;
    }
    QStringList verbArgs = args;
    if (!verbArgs.isEmpty())
        verbArgs.first() = QStringLiteral("isolation-server ") + first; // as the CLI's verbs see it
    if (first == QLatin1String("up"))
        return isolation::runUp(verbArgs);
    if (first == QLatin1String("bugreport"))
        return isolation::runBugReport(verbArgs);
    return isolation::out::usage(
        QStringLiteral("the engine program runs only `up` and `bugreport`, handed over by isolation-server"));
}
