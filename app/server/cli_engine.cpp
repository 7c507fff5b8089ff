// isolation-server up (handed to the engine program) / down / status / events / connect / disconnect.
#include "command.h"
#include "exitcodes.h"
#include "handover.h"
#include "output.h"

#include "core/signalwatcher.h"
#include "localapi/eventfollower.h"
#include "localapi/localapiclient.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QThread>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTime>

namespace isolation {

namespace {

int runStatus(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Show the engine's state."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    auto status = client.value().call("GET", QStringLiteral("/v1/status"));
    if (!status)
        return out::localApiFailure(status.error());
    const QJsonObject s = status.value();
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(s);
        return exitcode::Ok;
    }
    out::line(QStringLiteral("State:      %1").arg(s.value(QStringLiteral("reason")).toString()));
    out::line(QStringLiteral("Hub:        %1").arg(s.value(QStringLiteral("hub")).toString()));
    if (s.value(QStringLiteral("paired")).toBool()) {
        out::line(
            QStringLiteral("Server:     %1 (%2)")
                .arg(s.value(QStringLiteral("serverId")).toString(), s.value(QStringLiteral("serverName")).toString()));
        const QJsonObject tunnel = s.value(QStringLiteral("tunnel")).toObject();
        if (!tunnel.isEmpty())
            out::line(QStringLiteral("Tunnel:     %1").arg(tunnel.value(QStringLiteral("state")).toString()));
        const QJsonObject beat = s.value(QStringLiteral("heartbeat")).toObject();
        const QString last = beat.value(QStringLiteral("last")).toString();
        out::line(QStringLiteral("Heartbeat:  %1").arg(last.isEmpty() ? QStringLiteral("none yet") : last));
    }
    out::line(QStringLiteral("Keys in:    %1").arg(s.value(QStringLiteral("credentialStore")).toString()));
    out::line(QStringLiteral("Engine:     %1 (pid %2), version %3")
                  .arg(s.value(QStringLiteral("home")).toString())
                  .arg(s.value(QStringLiteral("pid")).toInteger())
                  .arg(s.value(QStringLiteral("version")).toString()));
    // What is wrong now and what to do, since when (local time).
    for (const QJsonValue v : s.value(QStringLiteral("warnings")).toArray()) {
        const QJsonObject w = v.toObject();
        const QDateTime since = QDateTime::fromString(w.value(QStringLiteral("since")).toString(), Qt::ISODate);
        out::line(QStringLiteral("%1 %2 (%3, since %4)")
                      .arg(w.value(QStringLiteral("severity")).toString() == QLatin1String("error") ? QStringLiteral("Error:     ")
                                                                                                    : QStringLiteral("Warning:   "),
                          w.value(QStringLiteral("message")).toString(), w.value(QStringLiteral("code")).toString(),
                          since.toLocalTime().toString(QStringLiteral("HH:mm:ss"))));
    }
    return exitcode::Ok;
}

// The activity log: what the engine did, oldest first (kept across restarts, the last 1000).
int runActivity(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Show what the engine did: sessions, saves, syncs, pairing, "
                                                    "connection and runtime, oldest first (the last 1000)."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addOption({QStringLiteral("kind"), QStringLiteral("Only entries of this kind (session, save, sync, "
                                                             "pairing, connection, runtime)."),
        QStringLiteral("kind")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    auto answer = client.value().call("GET", QStringLiteral("/v1/activity"));
    if (!answer)
        return out::localApiFailure(answer.error());
    const QString kind = parser.value(QStringLiteral("kind"));
    QJsonArray entries;
    for (const QJsonValue v : answer.value().value(QStringLiteral("activity")).toArray()) {
        if (kind.isEmpty() || v.toObject().value(QStringLiteral("kind")).toString() == kind)
            entries.append(v);
    }
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(QJsonObject {{QStringLiteral("activity"), entries}});
        return exitcode::Ok;
    }
    if (entries.isEmpty()) {
        out::line(kind.isEmpty() ? QStringLiteral("No activity yet.")
                                 : QStringLiteral("No activity of kind %1 (kinds: session, save, sync, pairing, "
                                                  "connection, runtime).")
                                       .arg(kind));
        return exitcode::Ok;
    }
    for (const QJsonValue v : std::as_const(entries)) {
        const QJsonObject e = v.toObject();
        const QDateTime time = QDateTime::fromString(e.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs);
        out::line(QStringLiteral("%1  %2  %3")
                      .arg(time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                          e.value(QStringLiteral("kind")).toString().leftJustified(10),
                          e.value(QStringLiteral("message")).toString()));
    }
    return exitcode::Ok;
}

// One line for people: what happened, without the JSON.
QString describeEvent(const LocalApiEvent &e)
{
    const QJsonObject &d = e.data;
    const auto str = [&d](const char *key) { return d.value(QLatin1String(key)).toString(); };
    const QString session = str("session").isEmpty() ? str("id") : str("session");
    if (e.kind == QLatin1String("state"))
        return str("reason");
    if (e.kind == QLatin1String("pairing"))
        return d.value(QStringLiteral("paired")).toBool() ? QStringLiteral("paired (%1)").arg(str("serverId"))
                                                          : QStringLiteral("%1 %2").arg(str("state"), str("userCode").isEmpty() ? str("reason") : str("userCode"));
    if (e.kind == QLatin1String("runtime"))
        return QStringLiteral("%1: %2").arg(str("state"), str("reason"));
    if (e.kind == QLatin1String("session.progress")) {
        if (d.value(QStringLiteral("operation")).isNull())
            return QStringLiteral("%1 idle").arg(session);
        QString bytes;
        if (d.contains(QStringLiteral("totalBytes")))
            bytes = QStringLiteral(" %1/%2 bytes")
                        .arg(d.value(QStringLiteral("bytes")).toInteger())
                        .arg(d.value(QStringLiteral("totalBytes")).toInteger());
        return QStringLiteral("%1 %2: %3%4").arg(session, str("operation"), str("phase"), bytes);
    }
    if (e.kind == QLatin1String("save") || e.kind == QLatin1String("sync")) {
        const QString message = d.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString();
        return QStringLiteral("%1 %2%3").arg(session, str("outcome"), message.isEmpty() ? QString() : ": " + message);
    }
    if (e.kind.startsWith(QLatin1String("session."))) {
        const int conflicts = int(d.value(QStringLiteral("conflicts")).toArray().size());
        return QStringLiteral("%1 %2%3")
            .arg(session, str("state"), conflicts ? QStringLiteral(" (%1 conflicted)").arg(conflicts) : QString());
    }
    if (e.kind == QLatin1String("activity"))
        return QStringLiteral("[%1] %2").arg(str("kind"), str("message"));
    if (e.kind == QLatin1String("reset"))
        return QStringLiteral("events were missed (%1): read the state again (isolation-server status)").arg(str("reason"));
    return QString::fromUtf8(QJsonDocument(d).toJson(QJsonDocument::Compact));
}

int runEvents(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Print the engine's events as they happen (state, pairing, runtime, sessions, progress, "
                       "saves, syncs, activity) until Ctrl-C. Follows the engine across restarts."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"),
        QStringLiteral("One JSON object a line: {\"id\", \"event\", \"data\"} (docs/architecture.md, \"Events\").")});
    parser.addOption({QStringLiteral("since"),
        QStringLiteral("Start after this event id (from GET /v1/snapshot or an earlier run of this command): "
                       "the missed events first, or a reset event when the engine no longer has them."),
        QStringLiteral("id")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    // The engine must be there to start with; once following, a restart is waited for.
    if (auto status = client.value().call("GET", QStringLiteral("/v1/status")); !status)
        return out::localApiFailure(status.error());

    const bool json = parser.isSet(QStringLiteral("json"));
    EventFollower follower(client.value().socketPath());
    int rc = exitcode::Ok;
    bool everSubscribed = false;
    QObject::connect(&follower, &EventFollower::subscribed, qApp, [&everSubscribed] { everSubscribed = true; });
    QObject::connect(&follower, &EventFollower::event, qApp, [json](const LocalApiEvent &e) {
        if (json)
            out::line(QString::fromUtf8(QJsonDocument(QJsonObject {{QStringLiteral("id"), e.id},
                                                          {QStringLiteral("event"), e.kind},
                                                          {QStringLiteral("data"), e.data}})
                    .toJson(QJsonDocument::Compact)));
        else
            out::line(QStringLiteral("%1  %2  %3")
                          .arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), e.kind, describeEvent(e)));
    });
    QObject::connect(&follower, &EventFollower::disconnected, qApp, [&](const QString &why) {
        if (!everSubscribed && why.contains(QLatin1String("refused"))) {
            out::error(why); // e.g. too many event streams: retrying would not help
            rc = exitcode::Failure;
            QCoreApplication::quit();
            return;
        }
        out::error(QStringLiteral("%1; reconnecting").arg(why));
    });
    SignalWatcher signals;
    QObject::connect(&signals, &SignalWatcher::terminationRequested, qApp, [] { QCoreApplication::quit(); });
    follower.start(parser.value(QStringLiteral("since")));
    QCoreApplication::exec();
    follower.stop();
    return rc;
}

// disconnect / connect: the user's toggle (POST /v1/tunnel).
int runConnected(const QStringList &arguments, bool on)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(on
            ? QStringLiteral("Connect this computer to the hub again (tunnel and heartbeat).")
            : QStringLiteral("Disconnect this computer from the hub: close the tunnel and stop the heartbeat, so the "
                             "hub shows it offline. Pairing, sessions and the runtime stay; it stays disconnected "
                             "across restarts until `connect`."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    auto status = client.value().call("POST", QStringLiteral("/v1/tunnel"), QJsonObject {{QStringLiteral("connected"), on}});
    if (!status)
        return out::localApiFailure(status.error());
    if (parser.isSet(QStringLiteral("json")))
        out::json(status.value());
    else
        out::line(status.value().value(QStringLiteral("reason")).toString());
    return exitcode::Ok;
}

// down: POST /v1/shutdown, then wait (bounded) until the socket stops answering.
int runDown(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Stop the running engine (it drains the tunnel first) and wait until it is gone."));
    parser.addHelpOption();
    if (!parser.parse(arguments))
        return out::usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out::line(parser.helpText());
        return exitcode::Ok;
    }
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    if (auto r = client.value().call("POST", QStringLiteral("/v1/shutdown")); !r)
        return out::localApiFailure(r.error());
    QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired()) {
        if (!client.value().call("GET", QStringLiteral("/v1/status"))) {
            out::line(QStringLiteral("isolation-server: engine stopped"));
            return exitcode::Ok;
        }
        QThread::msleep(100);
    }
    return out::fail(QStringLiteral("the engine still answers after 10 s"));
}

} // namespace

QList<Command> engineCommands()
{
    return {
        {QStringLiteral("up"),
            QStringLiteral("up [--credential-store keychain|file|auto] [--metrics-listen ADDRESS:PORT]"),
            QStringLiteral("Run the engine headless until SIGINT or SIGTERM."), handOverToEngine},
        {QStringLiteral("status"), QStringLiteral("status [--json]"),
            QStringLiteral("Show whether the engine runs, its state and hub."), runStatus},
        {QStringLiteral("activity"), QStringLiteral("activity [--json] [--kind KIND]"),
            QStringLiteral("Show what the engine did (sessions, saves, syncs, ...), kept across restarts."),
            runActivity},
        {QStringLiteral("events"), QStringLiteral("events [--json] [--since ID]"),
            QStringLiteral("Print the engine's events as they happen, until Ctrl-C."), runEvents},
        {QStringLiteral("down"), QStringLiteral("down"),
            QStringLiteral("Stop the running engine and wait until it has exited."), runDown},
        {QStringLiteral("disconnect"), QStringLiteral("disconnect [--json]"),
            QStringLiteral("Disconnect from the hub (shown offline) until `connect`; pairing and sessions stay."),
            [](const QStringList &a) { return runConnected(a, false); }},
        {QStringLiteral("connect"), QStringLiteral("connect [--json]"),
            QStringLiteral("Connect to the hub again after `disconnect`."),
            [](const QStringList &a) { return runConnected(a, true); }},
    };
}

} // namespace isolation
