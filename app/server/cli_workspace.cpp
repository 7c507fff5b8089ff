// isolation-server session new / sessions / save / sync / changes / workspaces / workspace bundle|export.
#include "command.h"
#include "exitcodes.h"
#include "output.h"
#include "progressline.h"
#include "sessionverbs.h"

#include "core/sessionlimits.h"
#include "localapi/apirecords.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

namespace isolation {

namespace {

using verbs::apiFailure;
using verbs::badSessionId;
using verbs::parse;
using verbs::pathSegment;
using verbs::printConflicts;
using verbs::shortId;

QString sizeText(qint64 bytes)
{
    if (bytes < 1024)
        return QStringLiteral("%1 B").arg(bytes);
    if (bytes < 1024 * 1024)
        return QStringLiteral("%1 KiB").arg(double(bytes) / 1024, 0, 'f', 1);
    if (bytes < qint64(1024) * 1024 * 1024)
        return QStringLiteral("%1 MiB").arg(double(bytes) / (1024 * 1024), 0, 'f', 1);
    return QStringLiteral("%1 GiB").arg(double(bytes) / (1024 * 1024 * 1024), 0, 'f', 2);
}

int runSession(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Sessions of a workspace.\n  new --workspace W   start a session on workspace W (name or id): a worktree on "
        "branch session/<id> off main; prints its id and worktree"));
    parser.addOption({QStringLiteral("workspace"), QStringLiteral("The workspace (name or id)."), QStringLiteral("W")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addOption(progress::option());
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("new"));
    if (int rc = parse(parser, arguments, 1, QStringLiteral("session takes one action: new")); rc >= 0)
        return rc;
    if (parser.positionalArguments().first() != QLatin1String("new"))
        return out::usage(QStringLiteral("session takes one action: new"));
    if (!parser.isSet(QStringLiteral("workspace")))
        return out::usage(QStringLiteral("session new needs --workspace W"));
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    const bool json = parser.isSet(QStringLiteral("json"));
    // Filled from the warm cache, else downloaded from the hub and checked out: a restore, which
    // shows its progress; Ctrl-C cancels it until the checkout (the session is removed).
    const QString id = api::newSessionId();
    auto r = progress::call(client.value(), "POST", QStringLiteral("/v1/sessions"),
        QJsonObject {
            {QStringLiteral("workspace"), parser.value(QStringLiteral("workspace"))}, {QStringLiteral("session"), id}},
        id, progress::modeFor(json, parser.isSet(QStringLiteral("progress"))), progress::Interrupt::Cancel);
    if (!r)
        return apiFailure(r.error(), json);
    const QJsonObject s = r.value();
    if (json) {
        out::json(s);
        return exitcode::Ok;
    }
    out::line(s.value(QStringLiteral("id")).toString());
    out::line(s.value(QStringLiteral("worktree")).toString());
    return exitcode::Ok;
}

int runSessions(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("List this engine's sessions."));
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    if (int rc = parse(parser, arguments, 0, QStringLiteral("sessions takes no arguments")); rc >= 0)
        return rc;
    auto client = out::client();
    if (!client)
        return out::fail(client.error().message);
    auto r = client.value().call("GET", QStringLiteral("/v1/sessions"));
    if (!r)
        return out::localApiFailure(r.error());
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(r.value());
        return exitcode::Ok;
    }
    const QJsonArray list = r.value().value(QStringLiteral("sessions")).toArray();
    if (list.isEmpty()) {
        out::line(QStringLiteral("No sessions. Start one with: isolation-server session new --workspace W"));
        return exitcode::Ok;
    }
    out::line(QStringLiteral("%1  %2  %3  %4  %5")
                  .arg(QStringLiteral("SESSION"), -14)
                  .arg(QStringLiteral("WORKSPACE"), -20)
                  .arg(QStringLiteral("STATE"), -8)
                  .arg(QStringLiteral("SANDBOX"), -9)
                  .arg(QStringLiteral("WORKTREE")));
    for (const QJsonValue v : list) {
        const QJsonObject s = v.toObject();
        const QString sandbox = s.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("state")).toString();
        out::line(
            QStringLiteral("%1  %2  %3  %4  %5")
                .arg(s.value(QStringLiteral("id")).toString(), -14)
                .arg(s.value(QStringLiteral("workspace")).toObject().value(QStringLiteral("name")).toString(), -20)
                .arg(s.value(QStringLiteral("state")).toString(), -8)
                .arg(sandbox.isEmpty() ? QStringLiteral("-") : sandbox, -9)
                .arg(s.value(QStringLiteral("worktree")).toString()));
    }
    return exitcode::Ok;
}

// A --file argument as a worktree-relative path: absolute paths must lie in the worktree; relative
// ones are taken from the current directory when it is inside the worktree, else from its root.
Result<QString> worktreePath(const QString &given, const QString &worktree)
{
    const QString root = QDir::cleanPath(worktree);
    const QString cwd = QDir::cleanPath(QDir::currentPath());
    QString absolute;
    if (QDir::isAbsolutePath(given))
        absolute = QDir::cleanPath(given);
    else if (cwd == root || cwd.startsWith(root + QLatin1Char('/')))
        absolute = QDir::cleanPath(cwd + QLatin1Char('/') + given);
    else
        absolute = QDir::cleanPath(root + QLatin1Char('/') + given);
    if (absolute == root)
        return QStringLiteral(".");
    if (!absolute.startsWith(root + QLatin1Char('/')))
        return Error::invalidInput(QStringLiteral("%1 is not in the session's worktree (%2)").arg(given, root));
    return absolute.mid(root.size() + 1);
}

int runSave(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Save a session: commit the selected files (default: every change) on its branch, merge it into main, and "
        "publish the change, encrypted, to the hub. Unselected changes stay uncommitted. Exit code 8 when the "
        "workspace moved on (nothing was written: sync, then save again)."));
    parser.addOption({QStringLiteral("file"),
        QStringLiteral("A file or directory to save (repeat for more); relative to the current directory inside "
                       "the worktree, else to the worktree."),
        QStringLiteral("PATH")});
    parser.addOption({{QStringLiteral("m"), QStringLiteral("message")}, QStringLiteral("The commit message."),
        QStringLiteral("MSG")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addOption(progress::option());
    parser.addPositionalArgument(QStringLiteral("session"), QStringLiteral("The session id."));
    if (int rc = parse(parser, arguments, 1, QStringLiteral("save takes one session id")); rc >= 0)
        return rc;
    const QString id = parser.positionalArguments().first();
    if (int rc = badSessionId(id); rc >= 0)
        return rc;
    const QString message = parser.value(QStringLiteral("message"));
    if (message.toUtf8().size() > kMaxSaveMessageBytes)
        return out::usage(QStringLiteral("the message is %1 bytes long; the limit is %2")
                              .arg(message.toUtf8().size())
                              .arg(kMaxSaveMessageBytes));
    const QStringList selected = parser.values(QStringLiteral("file"));
    if (selected.contains(QString()))
        return out::usage(QStringLiteral("--file needs a path; to save everything, leave --file out"));
    const bool json = parser.isSet(QStringLiteral("json"));
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    QJsonObject request;
    if (parser.isSet(QStringLiteral("file"))) {
        auto session = client.value().call("GET", QStringLiteral("/v1/sessions/") + pathSegment(id));
        if (!session)
            return apiFailure(session.error(), json);
        const QString worktree = session.value().value(QStringLiteral("worktree")).toString();
        QJsonArray files;
        for (const QString &f : selected) {
            auto relative = worktreePath(f, worktree);
            if (!relative)
                return out::usage(relative.error().message);
            files.append(relative.value());
        }
        request.insert(QStringLiteral("files"), files);
    }
    if (parser.isSet(QStringLiteral("message")))
        request.insert(QStringLiteral("message"), message);
    auto r = progress::call(client.value(), "POST", QStringLiteral("/v1/sessions/%1/save").arg(pathSegment(id)), request,
        id, progress::modeFor(json, parser.isSet(QStringLiteral("progress"))), progress::Interrupt::Cancel);
    if (!r && r.error().code == LocalApiError::Code::Stopped) {
        // The save is recorded before it starts: the engine runs it again when it starts.
        LocalApiError e = r.error();
        e.message += QStringLiteral(". The save resumes when the engine starts again");
        return apiFailure(e, json);
    }
    if (!r)
        return apiFailure(r.error(), json);
    const QJsonObject s = r.value();
    if (json) {
        out::json(s);
        return exitcode::Ok;
    }
    if (!s.value(QStringLiteral("published")).toBool()) {
        out::line(QStringLiteral("Nothing to save: the hub already has everything of this session."));
        return exitcode::Ok;
    }
    out::line(QStringLiteral("Saved %1 into main %2 (generation %3, %4 uploaded%5)")
                  .arg(shortId(s.value(QStringLiteral("commit")).toString()),
                      shortId(s.value(QStringLiteral("main")).toString()))
                  .arg(s.value(QStringLiteral("generation")).toInteger())
                  .arg(sizeText(s.value(QStringLiteral("segmentBytes")).toInteger()),
                      s.value(QStringLiteral("compacted")).toBool() ? QStringLiteral(", chain compacted") : QString()));
    return exitcode::Ok;
}

int runSync(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Sync a session: fetch what the hub has beyond it, update main, merge main into the session branch. On "
        "conflict nothing changes (exit code 9) unless --resolve, which leaves git's markers in the files and the "
        "merge in progress: the next save completes it."));
    parser.addOption({QStringLiteral("resolve"), QStringLiteral("Leave conflict markers instead of stopping.")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addOption(progress::option());
    parser.addPositionalArgument(QStringLiteral("session"), QStringLiteral("The session id."));
    if (int rc = parse(parser, arguments, 1, QStringLiteral("sync takes one session id")); rc >= 0)
        return rc;
    if (int rc = badSessionId(parser.positionalArguments().first()); rc >= 0)
        return rc;
    const bool json = parser.isSet(QStringLiteral("json"));
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    const QString id = parser.positionalArguments().first();
    auto r = progress::call(client.value(), "POST", QStringLiteral("/v1/sessions/%1/sync").arg(pathSegment(id)),
        QJsonObject {{QStringLiteral("resolve"), parser.isSet(QStringLiteral("resolve"))}}, id,
        progress::modeFor(json, parser.isSet(QStringLiteral("progress"))), progress::Interrupt::Cancel);
    if (!r)
        return apiFailure(r.error(), json);
    const QJsonObject s = r.value();
    const QString outcome = s.value(QStringLiteral("outcome")).toString();
    const bool conflicts = outcome == QLatin1String("conflicts_left");
    if (json) {
        out::json(s);
        return conflicts ? exitcode::Conflict : exitcode::Ok;
    }
    const QString fetched = s.value(QStringLiteral("hubMoved")).toBool()
        ? QStringLiteral("fetched generation %1 (%2 segment(s), %3)")
              .arg(s.value(QStringLiteral("generation")).toInteger())
              .arg(s.value(QStringLiteral("segmentsDownloaded")).toInt())
              .arg(sizeText(s.value(QStringLiteral("bytesDownloaded")).toInteger()))
        : QStringLiteral("the hub had nothing new");
    if (outcome == QLatin1String("up_to_date"))
        out::line(QStringLiteral("Up to date (%1).").arg(fetched));
    else if (outcome == QLatin1String("fast_forwarded"))
        out::line(QStringLiteral("Fast-forwarded to main %1 (%2).")
                      .arg(shortId(s.value(QStringLiteral("main")).toString()), fetched));
    else if (outcome == QLatin1String("merged"))
        out::line(QStringLiteral("Merged main %1 into the session (%2).")
                      .arg(shortId(s.value(QStringLiteral("main")).toString()), fetched));
    if (conflicts) {
        out::line(QStringLiteral("Conflicts left in the worktree with git's markers; edit them, then save:"));
        printConflicts(s.value(QStringLiteral("conflicts")).toArray());
        return exitcode::Conflict;
    }
    return exitcode::Ok;
}

QString statusLetter(const QString &status)
{
    static const QHash<QString, QString> letters {{QStringLiteral("added"), QStringLiteral("A ")},
        {QStringLiteral("modified"), QStringLiteral("M ")}, {QStringLiteral("deleted"), QStringLiteral("D ")},
        {QStringLiteral("renamed"), QStringLiteral("R ")}, {QStringLiteral("type_change"), QStringLiteral("T ")},
        {QStringLiteral("conflicted"), QStringLiteral("U ")}, {QStringLiteral("untracked"), QStringLiteral("??")}};
    return letters.value(status, QStringLiteral("  "));
}

int runChanges(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "What a session touched (status per file), commits ahead of and behind main; --refresh also asks the hub "
        "whether the workspace moved on."));
    parser.addOption({QStringLiteral("refresh"), QStringLiteral("Ask the hub (a 304 means nothing moved).")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addPositionalArgument(QStringLiteral("session"), QStringLiteral("The session id."));
    if (int rc = parse(parser, arguments, 1, QStringLiteral("changes takes one session id")); rc >= 0)
        return rc;
    if (int rc = badSessionId(parser.positionalArguments().first()); rc >= 0)
        return rc;
    const bool json = parser.isSet(QStringLiteral("json"));
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    QString path = QStringLiteral("/v1/sessions/%1/changes").arg(pathSegment(parser.positionalArguments().first()));
    if (parser.isSet(QStringLiteral("refresh")))
        path += QStringLiteral("?refresh=1");
    auto r = client.value().call("GET", path);
    if (!r)
        return apiFailure(r.error(), json);
    const QJsonObject c = r.value();
    if (json) {
        out::json(c);
        return exitcode::Ok;
    }
    const QJsonArray files = c.value(QStringLiteral("files")).toArray();
    for (const QJsonValue v : files) {
        const QJsonObject f = v.toObject();
        const QString old = f.value(QStringLiteral("oldPath")).toString();
        out::line(QStringLiteral("%1 %2%3").arg(statusLetter(f.value(QStringLiteral("status")).toString()),
            old.isEmpty() ? QString() : old + QStringLiteral(" -> "), f.value(QStringLiteral("path")).toString()));
    }
    if (files.isEmpty())
        out::line(QStringLiteral("No changes in the worktree."));
    // Right after a save the session branch is main's merge of it: up to date (docs/workspace.md).
    const int ahead = c.value(QStringLiteral("ahead")).toInt();
    const int behind = c.value(QStringLiteral("behind")).toInt();
    const QString merging = c.value(QStringLiteral("mergeInProgress")).toBool()
        ? QStringLiteral("; a merge is in progress (save completes it)")
        : QString();
    if (ahead == 0 && behind == 0)
        out::line(QStringLiteral("Up to date with main%1.").arg(merging));
    else
        out::line(QStringLiteral("%1 commit(s) ahead of main, %2 behind%3%4")
                      .arg(ahead)
                      .arg(behind)
                      .arg(behind > 0 ? QStringLiteral(" (sync to take main's work)") : QString(), merging));
    if (c.value(QStringLiteral("refreshed")).toBool())
        out::line(c.value(QStringLiteral("movedOn")).toBool()
                ? QStringLiteral("The workspace moved on since this session last synced: sync to get it.")
                : QStringLiteral("The hub has nothing newer."));
    return exitcode::Ok;
}

int runWorkspaces(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("List the workspaces of this computer's member (from the hub)."));
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    if (int rc = parse(parser, arguments, 0, QStringLiteral("workspaces takes no arguments")); rc >= 0)
        return rc;
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    auto r = client.value().call("GET", QStringLiteral("/v1/workspaces"));
    if (!r)
        return out::localApiFailure(r.error());
    if (parser.isSet(QStringLiteral("json"))) {
        out::json(r.value());
        return exitcode::Ok;
    }
    const QJsonArray list = r.value().value(QStringLiteral("workspaces")).toArray();
    if (list.isEmpty()) {
        out::line(
            QStringLiteral("No workspaces yet. Create one on the hub (its Sessions page), then start a session on "
                           "it with: isolation-server session new --workspace W."));
        return exitcode::Ok;
    }
    for (const QJsonValue v : list) {
        const QJsonObject w = v.toObject();
        out::line(QStringLiteral("%1  %2%3")
                      .arg(w.value(QStringLiteral("id")).toString(), -24)
                      .arg(w.value(QStringLiteral("name")).toString(),
                          w.value(QStringLiteral("cached")).toBool() ? QStringLiteral("  (cached)") : QString()));
    }
    return exitcode::Ok;
}

int runWorkspace(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Export a workspace (name or id) as the hub has it, decrypted.\n"
        "  bundle W OUT.bundle   one ordinary git bundle of main and every session branch (git clone reads it)\n"
        "  export W OUT.tar.gz   the definition and main's files, every credential left out"));
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print the LocalAPI's JSON.")});
    parser.addOption(progress::option());
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("bundle or export"));
    parser.addPositionalArgument(QStringLiteral("workspace"), QStringLiteral("The workspace (name or id)."));
    parser.addPositionalArgument(QStringLiteral("out"), QStringLiteral("The file to write."));
    if (int rc = parse(parser, arguments, 3, QStringLiteral("workspace takes: bundle|export W OUT")); rc >= 0)
        return rc;
    const QStringList p = parser.positionalArguments();
    if (p.at(0) != QLatin1String("bundle") && p.at(0) != QLatin1String("export"))
        return out::usage(QStringLiteral("workspace takes: bundle|export W OUT"));
    const bool json = parser.isSet(QStringLiteral("json"));
    auto client = out::patientClient();
    if (!client)
        return out::fail(client.error().message);
    const QString target = QFileInfo(p.at(2)).absoluteFilePath();
    auto r = progress::call(client.value(), "POST",
        QStringLiteral("/v1/workspaces/%1/%2").arg(pathSegment(p.at(1)), p.at(0)),
        QJsonObject {{QStringLiteral("path"), target}}, p.at(1),
        progress::modeFor(json, parser.isSet(QStringLiteral("progress"))), progress::Interrupt::Cancel,
        progress::Subject::Workspace);
    if (!r)
        return apiFailure(r.error(), json);
    const QJsonObject e = r.value();
    if (json) {
        out::json(e);
        return exitcode::Ok;
    }
    if (p.at(0) == QLatin1String("bundle")) {
        out::line(QStringLiteral("Wrote %1 (%2, %3 objects, main %4)")
                      .arg(target, sizeText(e.value(QStringLiteral("bytes")).toInteger()))
                      .arg(e.value(QStringLiteral("objects")).toInteger())
                      .arg(shortId(e.value(QStringLiteral("main")).toString())));
        return exitcode::Ok;
    }
    const QJsonArray stripped = e.value(QStringLiteral("stripped")).toArray();
    out::line(QStringLiteral("Wrote %1 (%2, %3 files, %4 credential file(s) left out)")
                  .arg(target, sizeText(e.value(QStringLiteral("bytes")).toInteger()))
                  .arg(e.value(QStringLiteral("files")).toInt())
                  .arg(stripped.size()));
    for (const QJsonValue v : stripped)
        out::line(QStringLiteral("  left out: %1").arg(v.toString()));
    return exitcode::Ok;
}

} // namespace

QList<Command> workspaceCommands()
{
    return {
        {QStringLiteral("workspaces"), QStringLiteral("workspaces [--json]"),
            QStringLiteral("List the member's workspaces (from the hub)."), runWorkspaces},
        {QStringLiteral("session"), QStringLiteral("session new --workspace W [--json [--progress]]"),
            QStringLiteral("Start a session on a workspace; prints its id and worktree."), runSession},
        {QStringLiteral("sessions"), QStringLiteral("sessions [--json]"),
            QStringLiteral("List the sessions, with their sandboxes."), runSessions},
        {QStringLiteral("save"), QStringLiteral("save S [--file PATH]... [-m MSG] [--json [--progress]]"),
            QStringLiteral("Commit (all, or the files given), merge into main, publish to the hub."), runSave},
        {QStringLiteral("sync"), QStringLiteral("sync S [--resolve] [--json [--progress]]"),
            QStringLiteral("Fetch the hub's main and merge it into the session."), runSync},
        {QStringLiteral("changes"), QStringLiteral("changes S [--refresh] [--json]"),
            QStringLiteral("Touched files, commits ahead/behind main; --refresh asks the hub."), runChanges},
        {QStringLiteral("workspace"), QStringLiteral("workspace bundle|export W OUT [--json [--progress]]"),
            QStringLiteral("Write a workspace as a git bundle, or its files (no credentials) as .tar.gz."),
            runWorkspace},
    };
}

} // namespace isolation
