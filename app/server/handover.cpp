#include "handover.h"

#include "command.h"
#include "exitcodes.h"
#include "output.h"

#include "core/helperprograms.h"

#include <QCoreApplication>
#include <QFile>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace isolation {

int handOverToEngine(const QStringList &)
{
    const QString program = helpers::program(QStringLiteral("isolation-engine"));
    // The command line as given, its program name too: `ps`, the usage line of `up --help` and
    // whoever watches the process still see `isolation-server up`.
    const QStringList given = QCoreApplication::arguments();
    const QByteArray path = QFile::encodeName(program);
    std::vector<QByteArray> bytes;
    bytes.reserve(given.size());
    for (const QString &argument : given)
        bytes.push_back(argument.toLocal8Bit());
    std::vector<char *> argv;
    argv.reserve(bytes.size() + 1);
    for (QByteArray &b : bytes)
        argv.push_back(b.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    ::execv(path.constData(), argv.data());
    const int error = errno;
    return out::fail(QStringLiteral("cannot run the engine program %1: %2 (is the installation complete?)")
                         .arg(program, QString::fromLocal8Bit(std::strerror(error))));
}

QList<Command> bugReportCommands()
{
    return {
        {QStringLiteral("bugreport"), QStringLiteral("bugreport [--output FILE] [--lines N] [--json]"),
            QStringLiteral("Write a report for a bug (versions, state, settings, recent log) without secrets."),
            handOverToEngine},
    };
}

} // namespace isolation
