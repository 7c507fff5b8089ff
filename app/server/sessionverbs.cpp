#include "sessionverbs.h"

#include "exitcodes.h"
#include "output.h"

#include "core/sessionlimits.h"

#include <QJsonObject>
#include <QUrl>

namespace isolation::verbs {

QString shortId(const QString &id)
{
    return id.left(12);
}

// Parses; returns -1 to go on, or the exit code (help shown, or a usage error).
int parse(QCommandLineParser &parser, const QStringList &arguments, int positionals, const QString &what)
{
    parser.addHelpOption();
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    if (parser.positionalArguments().size() != positionals)
        return out::usage(what);
    return -1;
}

// The session id argument: usage error (and its exit code) when it cannot be one, else -1.
int badSessionId(const QString &id)
{
    if (hasSessionIdShape(id))
        return -1;
    return out::usage(QStringLiteral("%1 is not a session id (see `isolation-server sessions`)").arg(id));
}

void printConflicts(const QJsonArray &conflicts)
{
    for (const QJsonValue v : conflicts) {
        const QJsonObject c = v.toObject();
        const int regions = c.value(QStringLiteral("regions")).toInt();
        out::line(QStringLiteral("  CONFLICT  %1%2")
                      .arg(c.value(QStringLiteral("path")).toString(),
                          regions > 0 ? QStringLiteral("  (%1 region%2)").arg(regions).arg(regions == 1 ? "" : "s")
                                      : QStringLiteral("  (whole file)")));
    }
}

// An error from the engine: its body on stdout with --json, the conflicts listed, the exit code that fits.
int apiFailure(const LocalApiError &e, bool json)
{
    if (json && !e.body.isEmpty())
        out::json(e.body);
    else if (e.errorCode == QLatin1String("conflict"))
        printConflicts(e.body.value(QStringLiteral("error")).toObject().value(QStringLiteral("conflicts")).toArray());
    return out::localApiFailure(e);
}

QString pathSegment(const QString &s)
{
    return QString::fromUtf8(QUrl::toPercentEncoding(s));
}

} // namespace isolation::verbs
