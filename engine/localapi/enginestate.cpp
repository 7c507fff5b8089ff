#include "enginestate.h"

#include <array>
#include <utility>

namespace isolation {

namespace {

constexpr std::array<std::pair<EngineState, const char *>, 7> kNames {{
    {EngineState::Stopped, "stopped"},
    {EngineState::NotPaired, "not_paired"},
    {EngineState::Pairing, "pairing"},
    {EngineState::Online, "online"},
    {EngineState::Reconnecting, "reconnecting"},
    {EngineState::Error, "error"},
    {EngineState::Disconnected, "disconnected"},
}};

} // namespace

QString engineStateName(EngineState state)
{
    for (const auto &[value, name] : kNames) {
        if (value == state)
            return QString::fromLatin1(name);
    }
    return QStringLiteral("error");
}

EngineState engineStateFromName(const QString &name, bool *ok)
{
    for (const auto &[value, text] : kNames) {
        if (name == QLatin1String(text)) {
            if (ok)
                *ok = true;
            return value;
        }
    }
    if (ok)
        *ok = false;
    return EngineState::Error;
}

} // namespace isolation
