// What the parts of SessionSandboxes (sessionsandboxes*.cpp) share, and nothing else includes.
#pragma once

#include "core/result.h"
#include "sandbox/sandboxerror.h"
#include "sessions/sessionerror.h"

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcSessionSandboxes)

namespace isolation::sessionsandboxes {

// The LocalAPI's and the tunnel's errors for a session's and a sandbox's failures.
Error fromSession(const SessionError &e);
Error fromSandbox(const SandboxError &e);

} // namespace isolation::sessionsandboxes
