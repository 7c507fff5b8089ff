// What the session and sandbox verbs of isolation-server share (cli_workspace.cpp, cli_sandbox.cpp):
// their argument parsing, the session id check, the engine's errors said, ids shortened.
#pragma once

#include "localapi/localapiclient.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QString>
#include <QStringList>

namespace isolation::verbs {

// A commit or sandbox id as people read it (its first 12 characters).
QString shortId(const QString &id);
// Parses (with --help); -1 to go on, or the exit code (help shown, or a usage error naming `what`
// when the number of positional arguments is not `positionals`).
int parse(QCommandLineParser &parser, const QStringList &arguments, int positionals, const QString &what);
// The session id argument: a usage error (and its exit code) when it cannot be one, else -1.
int badSessionId(const QString &id);
// The conflicted files of a sync or save, one line each.
void printConflicts(const QJsonArray &conflicts);
// An error from the engine: its body on stdout with --json, the conflicts listed, the exit code that fits.
int apiFailure(const LocalApiError &e, bool json);
// `s` percent-encoded as one segment of a LocalAPI path.
QString pathSegment(const QString &s);

} // namespace isolation::verbs
