// What the agent conversation view shows and does: a session's agent transcript (its output as it
// arrives, what was sent to it, its state changes) and a way to send it input. The Engine's session
// module implements this; the doorman answers the view's requests from it, without going to execd
// (docs/protocol.md, "View kinds").
#pragma once

#include "core/result.h"

#include <QList>
#include <QMetaObject>
#include <QObject>
#include <QString>

#include <functional>

namespace isolation {

struct AgentViewEntry
{
    quint64 seq = 0;
    int run = 0;
    QString kind; // "out", "err", "in" or "state"
    QString text;
    qint64 atMs = 0;
};

struct AgentViewState
{
    QString command; // what the agent runs (shown to the member who launched it)
    QString state; // agentStateName()
    QString reason;
    int runs = 0;
    int restarts = 0;
    int lastExitCode = 0;
    quint64 lastSeq = 0;
    bool truncated = false; // entries after the one asked for were dropped (only the newest are kept)
    QList<AgentViewEntry> entries;
};

class AgentViewSource
{
public:
    virtual ~AgentViewSource() = default;
    // The agent of `sessionId` and its entries after `after`. NotFound: it runs no agent here.
    virtual Result<AgentViewState> agentView(const QString &sessionId, quint64 after) const = 0;
    // Calls `changed` (in `context`'s thread) at every change of that agent's transcript until the
    // returned connection is disconnected or `context` goes. Invalid: no such agent.
    virtual QMetaObject::Connection watchAgent(
        const QString &sessionId, QObject *context, std::function<void()> changed)
        = 0;
    // Writes a line to the agent's standard input; `done` runs once.
    virtual void sendAgentInput(const QString &sessionId, const QString &text, std::function<void(Result<void>)> done)
        = 0;
};

} // namespace isolation
