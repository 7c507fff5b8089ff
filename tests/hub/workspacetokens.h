// Time-bounded per-workspace bearers: minted for a paired server of the workspace's owner, kept
// only as their SHA-256, refused once expired or once the server that got them is revoked.
#pragma once

#include "core/result.h"
#include "http/httpmessage.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>

namespace isolation::hub {

class HubState;

class WorkspaceTokens
{
public:
    WorkspaceTokens(HubState &state, int lifetimeSeconds);

    struct Minted
    {
        QByteArray token; // handed out once; never logged, never kept
        QDateTime expiresAt;
        int expiresIn = 0; // seconds
    };
    Minted mint(const QString &serverId, const QString &workspaceId);

    // The server a request's bearer was minted for, when it is a live token for this workspace;
    // else the answer to give (401 unauthorized / token_expired / revoked, 403 forbidden).
    Result<QString, HttpResponse> check(const HttpRequest &request, const QString &workspaceId);

    int lifetimeSeconds() const { return m_lifetime; }

private:
    struct Token
    {
        QByteArray hash;
        QString serverId;
        QString workspaceId;
        QDateTime expiresAt;
    };
    void prune();

    HubState &m_state;
    int m_lifetime;
    QList<Token> m_tokens;
};

} // namespace isolation::hub
