// isolation-server runtime status / restart.
#include "command.h"
#include "exitcodes.h"
#include "output.h"

#include <QCommandLineParser>

namespace isolation {

namespace {

void printStatus(const QJsonObject &r)
{
    out::line(QStringLiteral("Runtime:    %1").arg(r.value(QStringLiteral("state")).toString()));
    out::line(QStringLiteral("            %1").arg(r.value(QStringLiteral("reason")).toString()));
    QString image = r.value(QStringLiteral("image")).toString();
    if (r.value(QStringLiteral("standin")).toBool())
        image += QStringLiteral(" (offline stand-in, not OpenSandbox)");
    out::line(QStringLiteral("Image:      %1").arg(image));
    const QString digest = r.value(QStringLiteral("digest")).toString();
    out::line(QStringLiteral("Digest:     %1").arg(digest.isEmpty() ? QStringLiteral("not recorded yet") : digest));
    const QString container = r.value(QStringLiteral("container")).toString();
    out::line(QStringLiteral("Container:  %1")
                  .arg(container.isEmpty() ? QStringLiteral("none")
                                           : QStringLiteral("%1 (%2)").arg(
                                               container, r.value(QStringLiteral("containerState")).toString())));
    out::line(QStringLiteral("Health:     %1").arg(r.value(QStringLiteral("health")).toString()));
    if (r.contains(QStringLiteral("uptimeSeconds"))) {
        const qint64 s = r.value(QStringLiteral("uptimeSeconds")).toInteger();
        out::line(QStringLiteral("Uptime:     %1h %2m %3s").arg(s / 3600).arg(s / 60 % 60).arg(s % 60));
    }
    const QString url = r.value(QStringLiteral("url")).toString();
    if (!url.isEmpty())
        out::line(QStringLiteral("API:        %1").arg(url));
}

int runRuntime(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("The sandbox runtime (the pinned OpenSandbox lifecycle container).\n"
                       "  status [--json]   image, digest, container state, health, uptime\n"
                       "  restart           restart the lifecycle container and wait until it is healthy"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("status or restart"));
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0, QStringLiteral("status"));
    if (positional.size() > 1 || (action != QLatin1String("status") && action != QLatin1String("restart")))
        return out::usage(QStringLiteral("runtime takes one action: status or restart"));
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    const bool restart = action == QLatin1String("restart");
    if (restart)
        out::line(QStringLiteral("Restarting the runtime…"));
    auto r = restart ? client.value().call("POST", QStringLiteral("/v1/runtime/restart"))
                     : client.value().call("GET", QStringLiteral("/v1/runtime"));
    if (!r)
        return out::localApiFailure(r.error());
    if (parser.isSet(QStringLiteral("json")))
        out::json(r.value());
    else
        printStatus(r.value());
    return exitcode::Ok;
}

} // namespace

QList<Command> runtimeCommands()
{
    return {
        {QStringLiteral("runtime"), QStringLiteral("runtime status|restart [--json]"),
            QStringLiteral("Show the sandbox runtime (image, digest, container, health), or restart it."), runRuntime},
    };
}

} // namespace isolation
