// The JSON forms of sessions and their results, as the LocalAPI answers and session.json keeps
// them (docs/architecture.md, "LocalAPI"). Names are stable snake_case identifiers.
#pragma once

#include "sessionerror.h"
#include "sessionreports.h"

#include <QJsonArray>
#include <QJsonObject>

#include <optional>

namespace isolation {

class Session;
struct CacheEntry;
struct Spare;

QString syncOutcomeName(SyncOutcome outcome);
QString fileStatusName(FileStatus status);

QJsonArray toJson(const QList<ConflictedFile> &conflicts);
QJsonObject toJson(const SaveReport &report);
QJsonObject toJson(const SyncReport &report);
QJsonObject toJson(const ChangesReport &report);
QJsonObject toJson(const SessionError &error); // {"error": {"code", "message", "conflicts"?}}
QJsonObject toJson(const SessionProgress &progress);
QJsonObject toJson(const CacheEntry &entry);
QJsonObject toJson(const Spare &spare);
QJsonObject toJson(const Session &session);
// A last save or sync: its report (or error) with "at".
QJsonObject toJson(const LastSave &outcome);
QJsonObject toJson(const LastSync &outcome);

// The same read back (session.json); nullopt when `o` holds no outcome (none yet, or unreadable).
std::optional<LastSave> lastSaveFromJson(const QJsonObject &o);
std::optional<LastSync> lastSyncFromJson(const QJsonObject &o);

} // namespace isolation
