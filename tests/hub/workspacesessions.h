// The sessions the hub knows use a workspace, and on which server (docs/protocol.md, "Workspace
// bearers"): a session the hub launched is recorded at launch (and moved when the hub resumes it
// elsewhere); one a server made itself is declared by its first bearer request. A session uses one
// workspace on one server for good, and once it ended it gets no bearer again. DIR/sessions.json.
#pragma once

#include "core/result.h"

#include <QDateTime>
#include <QHash>
#include <QString>

namespace isolation::hub {

struct WorkspaceSession
{
    QString id; // "s" + 12 hex digits
    QString serverId;
    QString workspaceId;
    bool launched = false; // the hub launched it (else the server declared it)
    QDateTime since;
    QDateTime endedAt; // invalid while it runs
};

class WorkspaceSessions
{
public:
    explicit WorkspaceSessions(QString file);

    Status load();

    static bool isSessionId(const QString &id);
    const WorkspaceSession *session(const QString &id) const;

    // The hub launches (or resumes) `id` on `serverId` for `workspaceId`: recorded, or moved to that
    // server. A session already using another workspace, or ended, is refused.
    Status launch(const QString &id, const QString &serverId, const QString &workspaceId);
    // May `serverId` get a bearer of `workspaceId` for session `id`? A session the hub does not know
    // yet is declared for them (`declared` is set). Else the reason it may not (InvalidInput).
    Status use(const QString &id, const QString &serverId, const QString &workspaceId, bool *declared);
    // The session ended on its server: no bearer for it from now on. NotFound when `serverId` has no
    // such session.
    Status end(const QString &id, const QString &serverId);

private:
    Status save() const;

    QString m_file;
    QHash<QString, WorkspaceSession> m_sessions;
};

} // namespace isolation::hub
