// Time-bounded per-workspace bearers: minted for one session of a paired server of the workspace's
// owner (WorkspaceSessions), kept only as their SHA-256, refused once expired, once the server that
// got them is revoked, or once their session ended or moved to another server.
#pragma once

#include "core/result.h"
#include "http/httprequest.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

namespace isolation::hub {

class HubState;
class WorkspaceSessions;

class WorkspaceTokens
{
public:
    WorkspaceTokens(HubState &state, const WorkspaceSessions &sessions, int lifetimeSeconds);

    struct Minted
    {
        QByteArray token; // handed out once; never logged, never kept
        QDateTime expiresAt;
        int expiresIn = 0; // seconds
    };
    Minted mint(const QString &serverId, const QString &workspaceId, const QString &sessionId);

    // The server a request's bearer was minted for, when it is a live token for this workspace;
    // else the answer to give (401 unauthorized / token_expired / revoked / session_ended, 403
    // forbidden).
    Result<QString, HttpResponse> check(const HttpRequest &request, const QString &workspaceId);

    int lifetimeSeconds() const { return m_lifetime; }

private:
    struct Token
    {
        QByteArray hash;
        QString serverId;
        QString workspaceId;
        QString sessionId;
        QDateTime expiresAt;
    };
    void prune();

    HubState &m_state;
    const WorkspaceSessions &m_sessions;
    int m_lifetime;
    QList<Token> m_tokens;
};

} // namespace isolation::hub
