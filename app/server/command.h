// One verb of isolation-server: its name, one line of help, and what it does.
#pragma once

#include <QString>
#include <QStringList>

#include <functional>

namespace isolation {

struct Command
{
    QString name;
    QString synopsis; // e.g. "status [--json]"
    QString summary; // one line
    std::function<int(const QStringList &arguments)> run; // arguments start with the verb
};

// Verbs, grouped by the file that implements them.
QList<Command> engineCommands(); // up (handed over), down, status, activity, events, connect, disconnect
QList<Command> pairingCommands(); // pair, unpair
QList<Command> runtimeCommands(); // runtime status|restart
QList<Command> workspaceCommands(); // session new, sessions, save, sync, changes, workspaces, workspace bundle|export
QList<Command> sandboxCommands(); // launch, agent, suspend, resume, finish, restore
QList<Command> cacheCommands(); // cache, cache evict, cache clear
QList<Command> bugReportCommands(); // bugreport (handover.cpp: the engine program runs it)

} // namespace isolation
