#include "sandboxrecord.h"

#include <QJsonArray>

#include <array>
#include <utility>

namespace isolation {

namespace {

constexpr std::array<std::pair<SandboxState, const char *>, 15> kSandboxStates {{
    {SandboxState::Idle, "idle"},
    {SandboxState::Building, "building"},
    {SandboxState::Creating, "creating"},
    {SandboxState::Starting, "starting"},
    {SandboxState::Preparing, "preparing"},
    {SandboxState::Running, "running"},
    {SandboxState::Pausing, "pausing"},
    {SandboxState::Paused, "paused"},
    {SandboxState::Resuming, "resuming"},
    {SandboxState::Deleting, "deleting"},
    {SandboxState::Deleted, "deleted"},
    {SandboxState::Failed, "failed"},
    {SandboxState::Adopting, "adopting"},
    {SandboxState::Suspended, "suspended"},
    {SandboxState::Lost, "lost"},
}};

constexpr std::array<std::pair<AgentState, const char *>, 7> kAgentStates {{
    {AgentState::Idle, "idle"},
    {AgentState::Running, "running"},
    {AgentState::Waiting, "waiting"},
    {AgentState::Stopping, "stopping"},
    {AgentState::Stopped, "stopped"},
    {AgentState::Exited, "exited"},
    {AgentState::Failed, "failed"},
}};

template<typename E, size_t N>
QString nameOf(const std::array<std::pair<E, const char *>, N> &table, E value)
{
    for (const auto &[v, name] : table) {
        if (v == value)
            return QString::fromLatin1(name);
    }
    return QString::fromLatin1(table.front().second);
}

template<typename E, size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, const char *>, N> &table, const QString &name)
{
    for (const auto &[v, text] : table) {
        if (name == QLatin1String(text))
            return v;
    }
    return std::nullopt;
}

} // namespace

QString sandboxStateName(SandboxState state)
{
    return nameOf(kSandboxStates, state);
}

std::optional<SandboxState> sandboxStateFromName(const QString &name)
{
    return valueOf(kSandboxStates, name);
}

QString agentStateName(AgentState state)
{
    return nameOf(kAgentStates, state);
}

std::optional<AgentState> agentStateFromName(const QString &name)
{
    return valueOf(kAgentStates, name);
}

QJsonObject SandboxRecord::toJson() const
{
    QJsonObject o {{QStringLiteral("state"), sandboxStateName(state)}};
    if (!reason.isEmpty())
        o.insert(QStringLiteral("reason"), reason);
    if (!id.isEmpty())
        o.insert(QStringLiteral("id"), id);
    if (!image.isEmpty())
        o.insert(QStringLiteral("image"), image);
    if (launched.isValid())
        o.insert(QStringLiteral("launched"), launched.toUTC().toString(Qt::ISODate));
    if (control)
        o.insert(QStringLiteral("control"), true);
    if (!repositories.isEmpty()) {
        QJsonArray list;
        for (const ClonedRepository &r : repositories)
            list.append(QJsonObject {{QStringLiteral("url"), r.url}, {QStringLiteral("directory"), r.directory},
                {QStringLiteral("head"), r.head}});
        o.insert(QStringLiteral("repositories"), list);
    }
    if (!snapshot.isEmpty())
        o.insert(QStringLiteral("snapshot"), snapshot);
    if (agent) {
        o.insert(QStringLiteral("agent"),
            QJsonObject {{QStringLiteral("command"), agent->command},
                {QStringLiteral("state"), agentStateName(agent->state)}, {QStringLiteral("restarts"), agent->restarts},
                {QStringLiteral("commandId"), agent->commandId}});
    }
    return o;
}

std::optional<SandboxRecord> SandboxRecord::fromJson(const QJsonObject &o)
{
    const auto state = sandboxStateFromName(o.value(QStringLiteral("state")).toString());
    if (o.isEmpty() || !state)
        return std::nullopt;
    SandboxRecord r;
    r.state = *state;
    r.reason = o.value(QStringLiteral("reason")).toString();
    r.id = o.value(QStringLiteral("id")).toString();
    r.image = o.value(QStringLiteral("image")).toString();
    r.launched = QDateTime::fromString(o.value(QStringLiteral("launched")).toString(), Qt::ISODate);
    r.control = o.value(QStringLiteral("control")).toBool();
    for (const QJsonValue v : o.value(QStringLiteral("repositories")).toArray()) {
        const QJsonObject c = v.toObject();
        r.repositories.append({c.value(QStringLiteral("url")).toString(), c.value(QStringLiteral("directory")).toString(),
            c.value(QStringLiteral("head")).toString()});
    }
    r.snapshot = o.value(QStringLiteral("snapshot")).toString();
    if (const QJsonObject a = o.value(QStringLiteral("agent")).toObject(); !a.isEmpty()) {
        AgentRecord agent;
        agent.command = a.value(QStringLiteral("command")).toString();
        agent.state = agentStateFromName(a.value(QStringLiteral("state")).toString()).value_or(AgentState::Idle);
        agent.restarts = a.value(QStringLiteral("restarts")).toInt();
        agent.commandId = a.value(QStringLiteral("commandId")).toString();
        r.agent = agent;
    }
    return r;
}

} // namespace isolation
