// Where a session's views go: its sandbox's execd (endpoint and the access token only the
// doorman knows). The Engine's session module implements this; LifecycleViewTargets resolves
// through the lifecycle API for sandboxes registered with it.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <optional>

namespace isolation {

struct ViewTarget
{
    QString host; // execd's endpoint
    quint16 port = 0;
    QByteArray accessToken; // X-EXECD-ACCESS-TOKEN
};

class ViewTargetResolver
{
public:
    using Callback = std::function<void(Result<ViewTarget>)>;
    virtual ~ViewTargetResolver() = default;
    // Resolves a session id; `done` runs exactly once, now or later. NotFound: no such session.
    virtual void resolve(const QString &sessionId, Callback done) = 0;
    // The answer when it is known without waiting (the usual case: a running sandbox whose
    // endpoint was looked up before), with no callback to hold; nullopt: ask resolve().
    virtual std::optional<Result<ViewTarget>> resolveNow(const QString &sessionId)
    {
        Q_UNUSED(sessionId);
        return std::nullopt;
    }
};

} // namespace isolation
