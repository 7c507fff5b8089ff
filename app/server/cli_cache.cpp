// isolation-server cache [--json] / cache evict W / cache clear.
#include "command.h"
#include "exitcodes.h"
#include "output.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QJsonArray>

namespace isolation {

namespace {

QString mebibytes(qint64 bytes)
{
    return QStringLiteral("%1 MiB").arg(double(bytes) / (1024 * 1024), 0, 'f', 1);
}

// The cache as a list for people: the total against the cap, then each workspace and its spare.
void printCacheList(const QJsonObject &cache)
{
    const QJsonArray list = cache.value(QStringLiteral("workspaces")).toArray();
    out::line(QStringLiteral("%1 in %2 workspace(s), cap %3 (%4)")
                  .arg(mebibytes(cache.value(QStringLiteral("bytes")).toInteger()))
                  .arg(list.size())
                  .arg(mebibytes(cache.value(QStringLiteral("maxBytes")).toInteger()),
                      cache.value(QStringLiteral("directory")).toString()));
    for (const QJsonValue v : list) {
        const QJsonObject e = v.toObject();
        const QDateTime used = QDateTime::fromString(e.value(QStringLiteral("lastUsed")).toString(), Qt::ISODate);
        out::line(QStringLiteral("  %1  %2  %3  last used %4%5")
                      .arg(e.value(QStringLiteral("workspace")).toString(), -24)
                      .arg(e.value(QStringLiteral("name")).toString(), -16)
                      .arg(mebibytes(e.value(QStringLiteral("bytes")).toInteger()), 10)
                      .arg(used.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                          e.value(QStringLiteral("inUse")).toBool() ? QStringLiteral(" (in use)") : QString()));
        const QJsonObject spare = e.value(QStringLiteral("spare")).toObject();
        if (!spare.isEmpty())
            out::line(QStringLiteral("      spare session ready: %1, generation %2")
                          .arg(mebibytes(spare.value(QStringLiteral("bytes")).toInteger()))
                          .arg(spare.value(QStringLiteral("generation")).toInteger()));
    }
}

int runCache(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The warm cache: one bare repository per workspace, used first when a session starts. Disposable: "
        "deleting it loses nothing.\n"
        "  (no action) [--json]   list the cached workspaces, their size and last use\n"
        "  evict W                delete one workspace's copy (name or id)\n"
        "  clear                  delete every copy not in use\n"
        "The size cap is the setting cache/maxBytes (default 10 GiB); past it the least recently used go.\n"
        "Beside each cached workspace a spare session, checked out ahead of time, makes the next start\n"
        "instant; it goes with the workspace (setting cache/spareSessions, default true)."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("evict W, or clear"));
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    const QStringList p = parser.positionalArguments();
    const bool json = parser.isSet(QStringLiteral("json"));
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    if (p.isEmpty()) {
        auto r = client.value().call("GET", QStringLiteral("/v1/cache"));
        if (!r)
            return out::localApiFailure(r.error());
        if (json) {
            out::json(r.value());
            return exitcode::Ok;
        }
        printCacheList(r.value());
        return exitcode::Ok;
    }
    if (p.first() == QLatin1String("evict") && p.size() == 2) {
        auto r = client.value().call(
            "POST", QStringLiteral("/v1/cache/evict"), QJsonObject {{QStringLiteral("workspace"), p.at(1)}});
        if (!r)
            return out::localApiFailure(r.error());
        if (json)
            out::json(r.value());
        else
            out::line(QStringLiteral("Evicted %1 from the cache.")
                          .arg(r.value().value(QStringLiteral("evicted")).toString()));
        return exitcode::Ok;
    }
    if (p.first() == QLatin1String("clear") && p.size() == 1) {
        auto r = client.value().call("POST", QStringLiteral("/v1/cache/clear"));
        if (!r)
            return out::localApiFailure(r.error());
        if (json) {
            out::json(r.value());
            return exitcode::Ok;
        }
        const QJsonArray kept = r.value().value(QStringLiteral("kept")).toArray();
        out::line(QStringLiteral("Cleared %1 workspace(s) from the cache.")
                      .arg(r.value().value(QStringLiteral("evicted")).toArray().size()));
        for (const QJsonValue v : kept)
            out::line(QStringLiteral("  kept %1: in use").arg(v.toString()));
        return exitcode::Ok;
    }
    return out::usage(QStringLiteral("cache takes no action, evict W, or clear"));
}

} // namespace

QList<Command> cacheCommands()
{
    return {
        {QStringLiteral("cache"), QStringLiteral("cache [evict W | clear] [--json]"),
            QStringLiteral("List the warm cache (size, last use), evict one workspace, or clear it."), runCache},
    };
}

} // namespace isolation
