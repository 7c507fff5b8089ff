#include "adminverbs.h"

#include <QCommandLineParser>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QUrl>

#include <cstdio>

namespace isolation::hub {

namespace {

void print(const QString &text)
{
    const QByteArray bytes = text.toUtf8() + '\n';
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

int fail(const QString &text, int code = 1)
{
    std::fprintf(stderr, "isolation-hub: %s\n", qPrintable(text));
    return code;
}

void printJson(const QJsonObject &o)
{
    print(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented)).trimmed());
}

int status(const AdminClient &client, bool json)
{
    auto r = client.call("GET", QStringLiteral("/v1/admin/status"));
    if (!r)
        return fail(r.error().message);
    if (json) {
        printJson(r.value());
        return 0;
    }
    print(QStringLiteral("app origin:     %1").arg(r.value().value(QStringLiteral("app")).toString()));
    print(QStringLiteral("preview origin: %1").arg(r.value().value(QStringLiteral("preview")).toString()));
    print(QStringLiteral("data:           %1").arg(r.value().value(QStringLiteral("data")).toString()));
    return 0;
}

int decide(const AdminClient &client, const QStringList &args, bool approve)
{
    if (args.size() != 2)
        return fail(QStringLiteral("%1 needs the code the computer shows (XXXX-XXXX)")
                        .arg(approve ? QStringLiteral("approve") : QStringLiteral("deny")),
            2);
    auto r = client.call("POST",
        approve ? QStringLiteral("/v1/admin/pair/approve") : QStringLiteral("/v1/admin/pair/deny"),
        QJsonObject {{QStringLiteral("code"), args.at(1)}});
    if (!r)
        return fail(r.error().message);
    print(approve ? QStringLiteral("approved %1").arg(args.at(1)) : QStringLiteral("denied %1").arg(args.at(1)));
    return 0;
}

int servers(const AdminClient &client, bool json)
{
    auto r = client.call("GET", QStringLiteral("/v1/admin/servers"));
    if (!r)
        return fail(r.error().message);
    if (json) {
        printJson(r.value());
        return 0;
    }
    const QJsonArray list = r.value().value(QStringLiteral("servers")).toArray();
    if (list.isEmpty()) {
        print(QStringLiteral("no servers are paired"));
        return 0;
    }
    print(QStringLiteral("%1  %2  %3  %4")
              .arg(QStringLiteral("ID"), -18)
              .arg(QStringLiteral("NAME"), -20)
              .arg(QStringLiteral("STATE"), -8)
              .arg(QStringLiteral("LAST HEARTBEAT")));
    for (const QJsonValue &v : list) {
        const QJsonObject s = v.toObject();
        const QString state = s.value(QStringLiteral("revoked")).toBool() ? QStringLiteral("revoked")
            : s.value(QStringLiteral("online")).toBool()                  ? QStringLiteral("online")
                                                                          : QStringLiteral("offline");
        print(QStringLiteral("%1  %2  %3  %4")
                  .arg(s.value(QStringLiteral("id")).toString(), -18)
                  .arg(s.value(QStringLiteral("name")).toString(), -20)
                  .arg(state, -8)
                  .arg(s.value(QStringLiteral("lastHeartbeat")).toString()));
    }
    return 0;
}

int revoke(const AdminClient &client, const QStringList &args)
{
    if (args.size() != 2)
        return fail(QStringLiteral("revoke needs a server id (see `servers`)"), 2);
    auto r = client.call("POST", QStringLiteral("/v1/admin/servers/%1/revoke").arg(args.at(1)));
    if (!r)
        return fail(r.error().message);
    print(QStringLiteral("revoked %1").arg(args.at(1)));
    return 0;
}

int log(const AdminClient &client, bool json)
{
    auto r = client.call("GET", QStringLiteral("/v1/admin/log"));
    if (!r)
        return fail(r.error().message);
    if (json) {
        printJson(r.value());
        return 0;
    }
    for (const QJsonValue &v : r.value().value(QStringLiteral("actions")).toArray()) {
        QJsonObject a = v.toObject();
        const QString time = a.take(QStringLiteral("time")).toString();
        const QString action = a.take(QStringLiteral("action")).toString();
        print(QStringLiteral("%1  %2  %3")
                  .arg(time, action, QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact))));
    }
    return 0;
}

// Calls `method` on a server through its tunnel (the hub's admin route); the method's result.
Result<QJsonObject> callServer(const AdminClient &client, const QString &server, const QString &method,
    const QJsonObject &params, int seconds, QJsonObject *errorBody = nullptr)
{
    const QString path
        = QStringLiteral("/v1/admin/servers/%1/call").arg(QString::fromLatin1(QUrl::toPercentEncoding(server)));
    auto result = client.call("POST", path,
        QJsonObject {{QStringLiteral("method"), method}, {QStringLiteral("params"), params},
            {QStringLiteral("timeoutMs"), seconds * 1000}},
        seconds * 1000 + 5000, errorBody);
    if (!result)
        return result.error();
    return result.value().value(QStringLiteral("result")).toObject();
}

int call(const AdminClient &client, const QStringList &args)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("server"), QStringLiteral("Server id."));
    parser.addPositionalArgument(QStringLiteral("method"), QStringLiteral("Method, e.g. ping."));
    parser.addOption({QStringLiteral("params"), QStringLiteral("Params (a JSON object)."), QStringLiteral("json")});
    parser.addOption(
        {QStringLiteral("timeout"), QStringLiteral("Seconds to wait."), QStringLiteral("s"), QStringLiteral("30")});
    if (!parser.parse(args))
        return fail(parser.errorText(), 2);
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 2)
        return fail(QStringLiteral("call wants SERVER METHOD (see --help)"), 2);
    QJsonObject params;
    if (parser.isSet(QStringLiteral("params"))) {
        QJsonParseError pe {};
        const QJsonDocument doc = QJsonDocument::fromJson(parser.value(QStringLiteral("params")).toUtf8(), &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject())
            return fail(QStringLiteral("--params wants a JSON object"), 2);
        params = doc.object();
    }
    bool ok = false;
    const int seconds = parser.value(QStringLiteral("timeout")).toInt(&ok);
    if (!ok || seconds <= 0 || seconds > 300)
        return fail(QStringLiteral("--timeout wants 1 to 300 seconds"), 2);
    QJsonObject error;
    auto result = callServer(client, pos.at(0), pos.at(1), params, seconds, &error);
    if (!result) {
        // The error object on standard output too, for a script to branch on its code (a save
        // that moved on, a conflict and its files).
        if (!error.isEmpty())
            printJson(QJsonObject {{QStringLiteral("error"), error}});
        return fail(result.error().message);
    }
    print(QString::fromUtf8(QJsonDocument(result.value()).toJson(QJsonDocument::Indented)).trimmed());
    return 0;
}

int launch(const AdminClient &client, const QStringList &args, bool json)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("server"), QStringLiteral("Server id."), QStringLiteral("id")});
    parser.addOption({QStringLiteral("workspace"), QStringLiteral("Workspace (name or id)."), QStringLiteral("w")});
    parser.addOption({QStringLiteral("image"), QStringLiteral("Sandbox image."), QStringLiteral("image")});
    parser.addOption({QStringLiteral("secret"), QStringLiteral("A launch secret: the environment variable NAME's value."),
        QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("agent"), QStringLiteral("An agent command kept running."), QStringLiteral("cmd")});
    parser.addOption({QStringLiteral("repo"), QStringLiteral("Clone URL into DIR of the worktree."), QStringLiteral("DIR=URL")});
    parser.addOption({QStringLiteral("repo-secret"), QStringLiteral("DIR's clone credential: launch secret NAME."),
        QStringLiteral("DIR=NAME")});
    parser.addOption({QStringLiteral("repo-ssh-key"),
        QStringLiteral("DIR's ssh private key: read from FILE here, sent sealed as a launch secret."),
        QStringLiteral("DIR=FILE")});
    parser.addOption({QStringLiteral("repo-ssh-passphrase"),
        QStringLiteral("The key's passphrase: the environment variable NAME's value, sent sealed."),
        QStringLiteral("DIR=NAME")});
    parser.addOption({QStringLiteral("repo-known-hosts"),
        QStringLiteral("DIR's ssh server keys: OpenSSH known_hosts lines read from FILE."),
        QStringLiteral("DIR=FILE")});
    parser.addOption({QStringLiteral("insecure-any-host-key"),
        QStringLiteral("Take any ssh host key for DIR's server (a man in the middle's too)."), QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("JSON out.")});
    if (!parser.parse(args))
        return fail(parser.errorText(), 2);
    if (!parser.isSet(QStringLiteral("server")) || !parser.isSet(QStringLiteral("workspace")))
        return fail(QStringLiteral("launch wants --server ID --workspace W [--image I]"), 2);
    QJsonObject body {{QStringLiteral("workspace"), parser.value(QStringLiteral("workspace"))}};
    if (parser.isSet(QStringLiteral("image")))
        body.insert(QStringLiteral("image"), parser.value(QStringLiteral("image")));
    // Values come from this process's environment, never from its command line.
    QJsonObject secrets;
    for (const QString &name : parser.values(QStringLiteral("secret"))) {
        if (!qEnvironmentVariableIsSet(name.toLocal8Bit().constData()))
            return fail(QStringLiteral("--secret %1: no environment variable %1 to take the value from").arg(name), 2);
        secrets.insert(name, qEnvironmentVariable(name.toLocal8Bit().constData()));
    }
    if (parser.isSet(QStringLiteral("agent")))
        body.insert(QStringLiteral("agent"), parser.value(QStringLiteral("agent")));
    QHash<QString, QString> repoSecrets;
    for (const QString &given : parser.values(QStringLiteral("repo-secret"))) {
        const qsizetype eq = given.indexOf(QLatin1Char('='));
        if (eq <= 0)
            return fail(QStringLiteral("--repo-secret wants DIR=NAME"), 2);
        repoSecrets.insert(given.left(eq), given.mid(eq + 1));
    }
    // ssh repositories: DIR=VALUE options, each for a --repo DIR.
    QSet<QString> repoDirs;
    for (const QString &given : parser.values(QStringLiteral("repo")))
        repoDirs.insert(given.left(given.indexOf(QLatin1Char('='))));
    QHash<QString, QHash<QString, QString>> sshOptions; // option → DIR → value
    for (const char *name : {"repo-ssh-key", "repo-ssh-passphrase", "repo-known-hosts"}) {
        const QString option = QString::fromLatin1(name);
        for (const QString &given : parser.values(option)) {
            const qsizetype eq = given.indexOf(QLatin1Char('='));
            if (eq <= 0 || eq == given.size() - 1)
                return fail(QStringLiteral("--%1 wants DIR=%2")
                                .arg(option,
                                    option.endsWith(QLatin1String("passphrase")) ? QStringLiteral("NAME")
                                                                                 : QStringLiteral("FILE")),
                    2);
            if (!repoDirs.contains(given.left(eq)))
                return fail(QStringLiteral("--%1 %2: no --repo %3=URL").arg(option, given, given.left(eq)), 2);
            sshOptions[option].insert(given.left(eq), given.mid(eq + 1));
        }
    }
    for (const QString &dir : parser.values(QStringLiteral("insecure-any-host-key"))) {
        if (!repoDirs.contains(dir))
            return fail(QStringLiteral("--insecure-any-host-key %1: no --repo %1=URL").arg(dir), 2);
    }
    QJsonArray repositories;
    int keys = 0;
    for (const QString &given : parser.values(QStringLiteral("repo"))) {
        const qsizetype eq = given.indexOf(QLatin1Char('='));
        if (eq <= 0)
            return fail(QStringLiteral("--repo wants DIR=URL"), 2);
        const QString dir = given.left(eq);
        QJsonObject repo {{QStringLiteral("directory"), dir}, {QStringLiteral("url"), given.mid(eq + 1)}};
        if (repoSecrets.contains(dir))
            repo.insert(QStringLiteral("tokenSecret"), repoSecrets.value(dir));
        // The key is read here and travels sealed, as a launch secret: never on the engine's command line.
        if (const QString path = sshOptions[QStringLiteral("repo-ssh-key")].value(dir); !path.isEmpty()) {
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                return fail(
                    QStringLiteral("--repo-ssh-key %1: cannot read %2: %3").arg(dir, path, file.errorString()), 2);
            const QByteArray key = file.readAll();
            if (!key.contains("PRIVATE KEY-----"))
                return fail(QStringLiteral("--repo-ssh-key %1: %2 is not a private key").arg(dir, path), 2);
            QString name = QStringLiteral("REPO_SSH_KEY_%1").arg(++keys);
            while (secrets.contains(name))
                name += QLatin1Char('_');
            secrets.insert(name, QString::fromUtf8(key));
            repo.insert(QStringLiteral("sshKeySecret"), name);
        }
        if (const QString name = sshOptions[QStringLiteral("repo-ssh-passphrase")].value(dir); !name.isEmpty()) {
            if (!qEnvironmentVariableIsSet(name.toLocal8Bit().constData()))
                return fail(QStringLiteral("--repo-ssh-passphrase %1: no environment variable %2 to take it from")
                                .arg(dir, name),
                    2);
            secrets.insert(name, qEnvironmentVariable(name.toLocal8Bit().constData()));
            repo.insert(QStringLiteral("sshPassphraseSecret"), name);
        }
        if (const QString path = sshOptions[QStringLiteral("repo-known-hosts")].value(dir); !path.isEmpty()) {
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                return fail(
                    QStringLiteral("--repo-known-hosts %1: cannot read %2: %3").arg(dir, path, file.errorString()), 2);
            repo.insert(QStringLiteral("knownHosts"), QString::fromUtf8(file.readAll()));
        }
        if (parser.values(QStringLiteral("insecure-any-host-key")).contains(dir))
            repo.insert(QStringLiteral("insecureAcceptAnyHostKey"), true);
        repositories.append(repo);
    }
    if (!secrets.isEmpty())
        body.insert(QStringLiteral("secrets"), secrets);
    if (!repositories.isEmpty())
        body.insert(QStringLiteral("repositories"), repositories);
    // A launch may restore a large workspace and start a container: up to five minutes.
    const QString path = QStringLiteral("/v1/admin/servers/%1/launch")
                             .arg(QString::fromLatin1(QUrl::toPercentEncoding(parser.value(QStringLiteral("server")))));
    auto called = client.call("POST", path, body, 305000);
    if (!called)
        return fail(called.error().message);
    const Result<QJsonObject> result = called.value().value(QStringLiteral("result")).toObject();
    if (json) {
        print(QString::fromUtf8(QJsonDocument(result.value()).toJson(QJsonDocument::Indented)).trimmed());
        return 0;
    }
    const QJsonObject sandbox = result.value().value(QStringLiteral("sandbox")).toObject();
    print(result.value().value(QStringLiteral("id")).toString());
    print(QStringLiteral("sandbox %1 (%2): %3")
              .arg(sandbox.value(QStringLiteral("id")).toString(), sandbox.value(QStringLiteral("image")).toString(),
                  sandbox.value(QStringLiteral("state")).toString()));
    return 0;
}

int createWorkspace(const AdminClient &client, const QStringList &args, bool json)
{
    QStringList rest = args.mid(1);
    rest.removeAll(QStringLiteral("--json"));
    if (rest.size() != 2 || rest.at(0) != QLatin1String("create"))
        return fail(QStringLiteral("usage: workspace create NAME [--json]"), 2);
    auto r = client.call(
        "POST", QStringLiteral("/v1/admin/workspaces"), QJsonObject {{QStringLiteral("name"), rest.at(1)}});
    if (!r)
        return fail(r.error().message);
    if (json)
        printJson(r.value());
    else
        print(r.value().value(QStringLiteral("id")).toString());
    return 0;
}

int workspaces(const AdminClient &client, bool json)
{
    auto r = client.call("GET", QStringLiteral("/v1/admin/workspaces"));
    if (!r)
        return fail(r.error().message);
    if (json) {
        printJson(r.value());
        return 0;
    }
    const QJsonArray list = r.value().value(QStringLiteral("workspaces")).toArray();
    if (list.isEmpty()) {
        print(QStringLiteral("no workspaces (create one with `workspace create NAME`)"));
        return 0;
    }
    print(QStringLiteral("%1  %2  %3  %4")
              .arg(QStringLiteral("ID"), -23)
              .arg(QStringLiteral("NAME"), -20)
              .arg(QStringLiteral("SEGMENTS"), 8)
              .arg(QStringLiteral("BYTES")));
    for (const QJsonValue &v : list) {
        const QJsonObject w = v.toObject();
        print(QStringLiteral("%1  %2  %3  %4")
                  .arg(w.value(QStringLiteral("id")).toString(), -23)
                  .arg(w.value(QStringLiteral("name")).toString(), -20)
                  .arg(w.value(QStringLiteral("segments")).toInt(), 8)
                  .arg(qint64(w.value(QStringLiteral("bytes")).toDouble())));
    }
    return 0;
}

} // namespace

int view(const AdminClient &client, const QStringList &args, bool json)
{
    QCommandLineParser p;
    p.addPositionalArgument(QStringLiteral("view"), {});
    p.addPositionalArgument(QStringLiteral("session"), {});
    p.addOption({QStringLiteral("kind"), {}, QStringLiteral("kind")});
    p.addOption({QStringLiteral("port"), {}, QStringLiteral("port")});
    p.addOption({QStringLiteral("server"), {}, QStringLiteral("id")});
    p.addOption({QStringLiteral("json"), {}});
    if (!p.parse(QStringList {QStringLiteral("isolation-hub")} + args) || p.positionalArguments().size() != 2)
        return fail(QStringLiteral("usage: view SESSION --kind terminal|editor|agent|preview|files [--port N] [--server ID]"), 2);
    QJsonObject body {{QStringLiteral("session"), p.positionalArguments().at(1)},
        {QStringLiteral("kind"), p.value(QStringLiteral("kind"))},
        {QStringLiteral("port"), p.value(QStringLiteral("port")).toInt()}};
    if (p.isSet(QStringLiteral("server")))
        body.insert(QStringLiteral("server"), p.value(QStringLiteral("server")));
    auto r = client.call("POST", QStringLiteral("/v1/admin/views"), body);
    if (!r)
        return fail(r.error().message);
    if (json)
        printJson(r.value());
    else
        print(r.value().value(QStringLiteral("url")).toString());
    return 0;
}

const char *adminVerbsHelp()
{
    return "  status [--json]        Show the running hub's origins.\n"
           "  approve CODE           Approve the pairing code a computer shows (as the approval page does).\n"
           "  deny CODE              Deny it.\n"
           "  servers [--json]       List paired servers: online, offline (3 missed heartbeats) or revoked.\n"
           "  revoke SERVER          Revoke a server's credential; it drops to \"not paired\".\n"
           "  log [--json]           The hub's recent actions.\n"
           "  call SERVER METHOD [--params JSON] [--timeout S]\n"
           "                         Call METHOD (ping, server.status, session.save, ...) on a server\n"
           "                         through its tunnel (docs/protocol.md lists them); prints the result.\n"
           "                         An error from the server exits 1 with {\"error\": {...}} on stdout.\n"

           "  workspace create NAME [--json]\n"
           "                         Create a workspace of the hub's member; prints its id.\n"
           "  workspaces [--json]    List workspaces: segments and bytes stored (all encrypted).\n"
           "  launch --server ID --workspace W [--image I] [--secret NAME]... [--json]\n"
           "                         Launch a session of W in a sandbox on that server (session.launch);\n"
           "                         each --secret NAME takes its value from the environment variable NAME\n"
           "                         and goes sealed to the server's key.\n"
           "                         [--agent CMD] [--repo DIR=URL]... [--repo-secret DIR=NAME]...: an agent\n"
           "                         command kept running; repositories cloned into the worktree first,\n"
           "                         with the launch secret NAME as the credential.\n"
           "                         ssh repositories (URL ssh://[user@]host[:port]/path or [user@]host:path):\n"
           "                         [--repo-ssh-key DIR=FILE] (the private key, read here and sent sealed),\n"
           "                         [--repo-ssh-passphrase DIR=NAME] (its passphrase: environment variable\n"
           "                         NAME), [--repo-known-hosts DIR=FILE] (the server's known_hosts lines,\n"
           "                         e.g. from ssh-keyscan); without them the clone is refused, unless\n"
           "                         [--insecure-any-host-key DIR] takes any host key.\n"
           "  resume --server ID --session S [--workspace W --from ID] [--json]\n"
           "                         Resume a suspended session on a server: its own sandbox there, or, with\n"
           "                         --workspace, continued there from its saved work (--from: the server that\n"
           "                         suspended it, whose copy is then finished).\n"
           "  view SESSION --kind terminal|editor|agent|preview|files [--port N] [--server ID] [--json]\n"
           "                         Make a view of a session; prints its URL (one use, one hour).\n";
}

int resume(const AdminClient &client, const QStringList &args, bool json)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("server"), QStringLiteral("Server id."), QStringLiteral("id")});
    parser.addOption({QStringLiteral("session"), QStringLiteral("Session id."), QStringLiteral("s")});
    parser.addOption({QStringLiteral("workspace"), QStringLiteral("Workspace (name or id)."), QStringLiteral("w")});
    parser.addOption({QStringLiteral("from"), QStringLiteral("The server that suspended it."), QStringLiteral("id")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("JSON out.")});
    if (!parser.parse(args))
        return fail(parser.errorText(), 2);
    if (!parser.isSet(QStringLiteral("server")) || !parser.isSet(QStringLiteral("session")))
        return fail(QStringLiteral("resume wants --server ID --session S [--workspace W --from ID]"), 2);
    QJsonObject body {{QStringLiteral("session"), parser.value(QStringLiteral("session"))}};
    for (const QString &key : {QStringLiteral("workspace"), QStringLiteral("from")}) {
        if (parser.isSet(key))
            body.insert(key, parser.value(key));
    }
    const QString path = QStringLiteral("/v1/admin/servers/%1/resume")
                             .arg(QString::fromLatin1(QUrl::toPercentEncoding(parser.value(QStringLiteral("server")))));
    auto called = client.call("POST", path, body, 365000);
    if (!called)
        return fail(called.error().message);
    const QJsonObject result = called.value().value(QStringLiteral("result")).toObject();
    if (json)
        print(QString::fromUtf8(QJsonDocument(result).toJson(QJsonDocument::Indented)).trimmed());
    else
        print(QStringLiteral("%1: sandbox %2")
                  .arg(result.value(QStringLiteral("id")).toString(),
                      result.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString()));
    return 0;
}

int runAdminVerb(const AdminClient &client, const QString &verb, const QStringList &args)
{
    const bool json = args.contains(QStringLiteral("--json"));
    if (verb == QLatin1String("status"))
        return status(client, json);
    if (verb == QLatin1String("approve"))
        return decide(client, args, true);
    if (verb == QLatin1String("deny"))
        return decide(client, args, false);
    if (verb == QLatin1String("servers"))
        return servers(client, json);
    if (verb == QLatin1String("revoke"))
        return revoke(client, args);
    if (verb == QLatin1String("log"))
        return log(client, json);
    if (verb == QLatin1String("call"))
        return call(client, args);
    if (verb == QLatin1String("workspace"))
        return createWorkspace(client, args, json);
    if (verb == QLatin1String("workspaces"))
        return workspaces(client, json);
    if (verb == QLatin1String("view"))
        return view(client, args, json);
    if (verb == QLatin1String("launch"))
        return launch(client, args, json);
    if (verb == QLatin1String("resume"))
        return resume(client, args, json);
    return -1;
}

} // namespace isolation::hub
