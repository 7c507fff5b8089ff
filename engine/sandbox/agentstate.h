// The states of an agent under AgentSupervisor.
#pragma once

#include <QMetaType>
#include <QString>

namespace isolation {

enum class AgentState {
    Idle, // not started yet
    Running, // execd runs it; its output streams
    Waiting, // it ended unexpectedly; a restart is due after a backoff delay
    Stopping, // stop() asked execd to interrupt it
    Stopped, // stopped on request: never restarted
    Exited, // it ended by itself with status 0: its work is done, not restarted
    Failed, // it failed too often in a row (or execd refused it): given up
};

QString agentStateName(AgentState state);

} // namespace isolation

Q_DECLARE_METATYPE(isolation::AgentState)
