// Printing for isolation-server verbs: lines, JSON, errors with their exit codes.
#pragma once

#include "core/result.h"
#include "localapi/localapiclient.h"

#include <QJsonObject>
#include <QString>

namespace isolation::out {

void line(const QString &text);
void json(const QJsonObject &object);
void error(const QString &text);

int usage(const QString &text); // prints, returns exitcode::Usage
int fail(const QString &text); // prints, returns exitcode::Failure
int localApiFailure(const LocalApiError &error); // the exit code that fits the error

// A client for this state directory's engine (ISOLATION_HOME or the XDG directories).
Result<LocalApiClient> client();
// The same, for operations that take as long as they take (saves, syncs, exports): no time limit.
Result<LocalApiClient> patientClient();

} // namespace isolation::out
