// sandbox: what runs in one session's sandbox — launching it on the runtime with the worktree at
// /workspace (SandboxLauncher, DevcontainerConfig), the agent in it (AgentSupervisor), and
// repositories cloned into the worktree with credentials kept off every command line (RepoCloner).
#pragma once

#include "core/result.h"

#include <QLoggingCategory>
#include <QString>

Q_DECLARE_LOGGING_CATEGORY(lcSandbox)

namespace isolation {

struct SandboxError
{
    enum class Code {
        Refused, // refused before anything ran: a bad request, a mount outside the session directory, a bad config
        Unavailable, // the runtime or execd did not answer; trying again later may work
        Failed, // it ran and failed: the message says why (a sandbox that never came up, a failed command, a clone)
        Cancelled, // stopped on request
    };
    Code code = Code::Failed;
    QString message; // redacted: never holds a secret

    bool retryable() const { return code == Code::Unavailable; }

    static SandboxError refused(QString m) { return {Code::Refused, std::move(m)}; }
    static SandboxError unavailable(QString m) { return {Code::Unavailable, std::move(m)}; }
    static SandboxError failed(QString m) { return {Code::Failed, std::move(m)}; }
    static SandboxError cancelled(QString m) { return {Code::Cancelled, std::move(m)}; }
};

QString errorCodeName(SandboxError::Code code);

} // namespace isolation
