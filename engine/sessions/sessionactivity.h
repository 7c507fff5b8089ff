// What the activity log says of sessions: one entry per session made, launched, suspended,
// resumed or finished, and per save and sync, with the door that asked (docs/formats.md,
// "Activity log"). Entries are recorded where the door is known: the LocalAPI's routes (the tray
// or the CLI, told by the client's User-Agent), the tunnel's calls (the cloud) and the sandbox's
// control directory (the agent).
#pragma once

#include "sessionerror.h"
#include "sessionreports.h"

#include "core/result.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

namespace isolation {

class ActivityLog;
class Session;

enum class Door { Tray, Cli, Cloud, Agent };
QString doorName(Door door); // "tray", "cli", "cloud", "agent"
// The door of a LocalAPI request: the tray's client names itself; anything else is the CLI.
Door doorOfClient(QByteArrayView userAgent);

void recordSave(ActivityLog *log, const Session &session, Door door, const Result<SaveReport, SessionError> &result);
void recordSync(ActivityLog *log, const Session &session, Door door, const Result<SyncReport, SessionError> &result);
// A session's life: `event` is "created", "launched", "suspended", "resumed" or "finished".
void recordSession(ActivityLog *log, const QString &event, const QString &sessionId, const QString &workspace, Door door,
    const QJsonObject &more = {});

} // namespace isolation
