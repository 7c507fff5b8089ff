// isolation-server launch / agent / suspend / resume / finish / restore: sessions with a sandbox,
// and a session's worktree restored.
#include "command.h"
#include "exitcodes.h"
#include "output.h"
#include "progressline.h"
#include "sessionverbs.h"

#include "localapi/apirecords.h"

#include <QCommandLineParser>
#include <QJsonArray>

namespace isolation {

namespace {

using verbs::apiFailure;
using verbs::badSessionId;
using verbs::parse;
using verbs::pathSegment;
using verbs::shortId;

int runLaunch(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Launch a session in a sandbox: a new session of workspace W (from the warm cache, then the hub), then its "
        "sandbox on the runtime with the worktree at /workspace. The image is --image, else the workspace's "
        ".devcontainer/devcontainer.json, else the setting sandbox/image. The cloud does the same over the tunnel "
        "(isolation-hub launch)."));
    parser.addOption({QStringLiteral("workspace"), QStringLiteral("The workspace (name or id)."), QStringLiteral("W")});
    parser.addOption({QStringLiteral("image"), QStringLiteral("The sandbox image."), QStringLiteral("I")});
    parser.addOption({QStringLiteral("agent"),
        QStringLiteral("A command to run in the sandbox and keep running (restarted with backoff when it fails)."),
        QStringLiteral("CMD")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addOption(progress::option());
    if (int rc = parse(parser, arguments, 0, QStringLiteral("launch takes no arguments but --workspace W")); rc >= 0)
        return rc;
    if (!parser.isSet(QStringLiteral("workspace")))
        return out::usage(QStringLiteral("launch needs --workspace W"));
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    QJsonObject body {{QStringLiteral("workspace"), parser.value(QStringLiteral("workspace"))}};
    if (parser.isSet(QStringLiteral("image")))
        body.insert(QStringLiteral("image"), parser.value(QStringLiteral("image")));
    if (parser.isSet(QStringLiteral("agent")))
        body.insert(QStringLiteral("agent"), parser.value(QStringLiteral("agent")));
    const QString id = api::newSessionId();
    body.insert(QStringLiteral("session"), id);
    const bool json = parser.isSet(QStringLiteral("json"));
    // Ctrl-C cancels it: the session's start, a clone or the sandbox's launch stopped, and nothing
    // of it left (the sandbox deleted, the session removed).
    auto r = progress::call(client.value(), "POST", QStringLiteral("/v1/sessions/launch"), body, id,
        progress::modeFor(json, parser.isSet(QStringLiteral("progress"))), progress::Interrupt::Cancel);
    if (!r)
        return apiFailure(r.error(), json);
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(r.value());
        return exitcode::Ok;
    }
    const QJsonObject sandbox = r.value().value(QStringLiteral("sandbox")).toObject();
    out::line(r.value().value(QStringLiteral("id")).toString());
    out::line(QStringLiteral("sandbox %1 (%2), %3")
                  .arg(shortId(sandbox.value(QStringLiteral("id")).toString()),
                      sandbox.value(QStringLiteral("image")).toString(), sandbox.value(QStringLiteral("state")).toString()));
    return exitcode::Ok;
}

int runAgent(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "A session's agent: its state, how often it was restarted, and what it printed last (secrets redacted)."));
    parser.addPositionalArgument(QStringLiteral("session"), QStringLiteral("The session id."));
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    if (int rc = parse(parser, arguments, 1, QStringLiteral("agent takes one session id")); rc >= 0)
        return rc;
    if (int rc = badSessionId(parser.positionalArguments().first()); rc >= 0)
        return rc;
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    auto r = client.value().call(
        "GET", QStringLiteral("/v1/sessions/%1/agent").arg(pathSegment(parser.positionalArguments().first())));
    if (!r)
        return apiFailure(r.error(), parser.isSet(QStringLiteral("json")));
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(r.value());
        return exitcode::Ok;
    }
    out::line(QStringLiteral("agent %1, %2 restart(s)%3")
                  .arg(r.value().value(QStringLiteral("state")).toString())
                  .arg(r.value().value(QStringLiteral("restarts")).toInt())
                  .arg(r.value().value(QStringLiteral("reason")).toString().isEmpty()
                          ? QString()
                          : QStringLiteral(": ") + r.value().value(QStringLiteral("reason")).toString()));
    for (const QJsonValue v : r.value().value(QStringLiteral("lines")).toArray())
        out::line(v.toString());
    return exitcode::Ok;
}

// suspend S / resume S / finish S [--discard]
int runSandboxVerb(const QString &verb, const QString &description, const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(description);
    parser.addPositionalArgument(QStringLiteral("session"), QStringLiteral("The session id."));
    if (verb == QLatin1String("finish"))
        parser.addOption({QStringLiteral("discard"), QStringLiteral("Finish even with unsaved work, dropping it.")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addOption(progress::option());
    if (int rc = parse(parser, arguments, 1, QStringLiteral("%1 takes one session id").arg(verb)); rc >= 0)
        return rc;
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    const QString id = parser.positionalArguments().first();
    if (int rc = badSessionId(id); rc >= 0)
        return rc;
    QJsonObject body;
    if (verb == QLatin1String("finish"))
        body.insert(QStringLiteral("discard"), parser.isSet(QStringLiteral("discard")));
    const bool json = parser.isSet(QStringLiteral("json"));
    auto r = progress::call(client.value(), "POST", QStringLiteral("/v1/sessions/%1/%2").arg(pathSegment(id), verb),
        body, id, progress::modeFor(json, parser.isSet(QStringLiteral("progress"))));
    if (!r)
        return apiFailure(r.error(), json);
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(r.value());
        return exitcode::Ok;
    }
    if (verb == QLatin1String("restore")) {
        out::line(QStringLiteral("Restored %1's worktree from its session branch: %2")
                      .arg(id, r.value().value(QStringLiteral("worktree")).toString()));
    } else if (verb == QLatin1String("finish")) {
        const int dropped = r.value().value(QStringLiteral("discarded")).toInt();
        out::line(dropped > 0 ? QStringLiteral("Finished %1; %2 unsaved change(s) discarded.").arg(id).arg(dropped)
                              : QStringLiteral("Finished %1.").arg(id));
    } else {
        out::line(QStringLiteral("%1: sandbox %2")
                      .arg(id, r.value().value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString()));
    }
    return exitcode::Ok;
}

} // namespace

QList<Command> sandboxCommands()
{
    return {
        {QStringLiteral("launch"), QStringLiteral("launch --workspace W [--image I] [--agent CMD] [--json [--progress]]"),
            QStringLiteral("Start a session in a sandbox (as the cloud does over the tunnel)."), runLaunch},
        {QStringLiteral("agent"), QStringLiteral("agent S [--json]"),
            QStringLiteral("A session's agent: state, restarts, its last output."), runAgent},
        {QStringLiteral("suspend"), QStringLiteral("suspend S [--json [--progress]]"),
            QStringLiteral("Save what changed, snapshot the session's sandbox and stop it."),
            [](const QStringList &a) {
                return runSandboxVerb(QStringLiteral("suspend"),
                    QStringLiteral("Suspend a session: save what changed (a save the hub refuses keeps the work on the "
                                   "session branch), snapshot its sandbox, then delete the sandbox (nothing runs "
                                   "until resume)."),
                    a);
            }},
        {QStringLiteral("resume"), QStringLiteral("resume S [--json [--progress]]"), QStringLiteral("Resume a suspended session."),
            [](const QStringList &a) {
                return runSandboxVerb(QStringLiteral("resume"),
                    QStringLiteral("Resume a suspended session: a sandbox from its snapshot, the agent started again."), a);
            }},
        {QStringLiteral("finish"), QStringLiteral("finish S [--discard] [--json [--progress]]"),
            QStringLiteral("Delete a session and its sandbox; refused with unsaved work unless --discard."),
            [](const QStringList &a) {
                return runSandboxVerb(QStringLiteral("finish"),
                    QStringLiteral("Finish a session: its sandbox deleted, its worktree removed. Refused (exit code 10) "
                                   "while it has unsaved work (changed files, or commits main lacks) unless --discard."),
                    a);
            }},
        {QStringLiteral("restore"), QStringLiteral("restore S [--json [--progress]]"),
            QStringLiteral("Check the session branch out again into a worktree deleted from the disk."),
            [](const QStringList &a) {
                return runSandboxVerb(QStringLiteral("restore"),
                    QStringLiteral("Restore a session whose worktree was deleted from the disk: its session branch is "
                                   "checked out again (what was never saved on the branch is gone). Refused while the "
                                   "worktree is there."),
                    a);
            }},
    };
}

} // namespace isolation
