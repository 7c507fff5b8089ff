#include "workspacetokens.h"

#include "hubstate.h"
#include "workspacesessions.h"

#include "crypto/consttime.h"
#include "crypto/random.h"

namespace isolation::hub {

namespace {

// Expired tokens are remembered a while longer so their holders hear "expired", not "unknown".
constexpr int kGraceSeconds = 3600;

} // namespace

WorkspaceTokens::WorkspaceTokens(HubState &state, const WorkspaceSessions &sessions, int lifetimeSeconds)
    : m_state(state)
    , m_sessions(sessions)
    , m_lifetime(lifetimeSeconds)
{ }

WorkspaceTokens::Minted WorkspaceTokens::mint(
    const QString &serverId, const QString &workspaceId, const QString &sessionId)
{
    prune();
    Minted m;
    m.token = "wst_" + randomBytes(32).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    m.expiresIn = m_lifetime;
    m.expiresAt = QDateTime::currentDateTimeUtc().addSecs(m_lifetime);
    m_tokens.append({HubState::credentialHash(m.token), serverId, workspaceId, sessionId, m.expiresAt});
    return m;
}

Result<QString, HttpResponse> WorkspaceTokens::check(const HttpRequest &request, const QString &workspaceId)
{
    const QByteArray bearer = request.bearerToken();
    if (bearer.isEmpty())
        return HttpResponse::error(
            401, QStringLiteral("unauthorized"), QStringLiteral("a workspace token is required"));
    const QByteArray hash = HubState::credentialHash(bearer);
    const Token *found = nullptr;
    for (const Token &t : std::as_const(m_tokens)) {
        if (constantTimeEquals(hash, t.hash))
            found = &t;
    }
    if (!found)
        return HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("unknown workspace token"));
    if (found->expiresAt <= QDateTime::currentDateTimeUtc())
        return HttpResponse::error(
            401, QStringLiteral("token_expired"), QStringLiteral("the workspace token expired; get a new one"));
    const ServerRecord *server = m_state.server(found->serverId);
    if (!server || server->revoked)
        return HttpResponse::error(
            401, QStringLiteral("revoked"), QStringLiteral("the server holding this token was unpaired"));
    // A bearer lives no longer than the use it was minted for.
    const WorkspaceSession *session = m_sessions.session(found->sessionId);
    if (!session || session->endedAt.isValid() || session->serverId != found->serverId)
        return HttpResponse::error(401, QStringLiteral("session_ended"),
            QStringLiteral("the session this token was minted for ended or moved to another server"));
    if (found->workspaceId != workspaceId)
        return HttpResponse::error(
            403, QStringLiteral("forbidden"), QStringLiteral("this token is for another workspace"));
    return found->serverId;
}

void WorkspaceTokens::prune()
{
    const QDateTime horizon = QDateTime::currentDateTimeUtc().addSecs(-kGraceSeconds);
    m_tokens.removeIf([&](const Token &t) { return t.expiresAt < horizon; });
}

} // namespace isolation::hub
