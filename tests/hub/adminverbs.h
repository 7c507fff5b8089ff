// isolation-hub's admin verbs: each talks to the running hub through AdminClient.
#pragma once

#include "adminclient.h"

#include <QStringList>

namespace isolation::hub {

// Runs VERB with its arguments (args[0] is the verb). Returns the exit code; -1 for an unknown verb.
int runAdminVerb(const AdminClient &client, const QString &verb, const QStringList &args);

// The help lines for the admin verbs.
const char *adminVerbsHelp();

} // namespace isolation::hub
