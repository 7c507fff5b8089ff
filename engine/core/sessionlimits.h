// What a session id and a save message must be: the engine holds them to it (sessions/,
// workspace/), and a client (the CLI) checks before it asks.
#pragma once

#include <QString>

namespace isolation {

// The longest save message the engine takes, in bytes of UTF-8 (longer is refused as invalid).
inline constexpr qsizetype kMaxSaveMessageBytes = 64 * 1024;

// Whether `id` has the shape of a session id: a letter or digit, then up to 127 letters, digits,
// '.', '_' or '-', no "..", no ".lock" at the end. The engine also holds it to git's rules for a
// branch name (GitRepo::isValidSessionId).
bool hasSessionIdShape(const QString &id);

} // namespace isolation
