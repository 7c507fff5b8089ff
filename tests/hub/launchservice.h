// Sessions as the cloud starts them: the hub names a session, seals its launch secrets to the
// server's key and calls `session.launch` through the server's tunnel. Served to the admin API
// (`POST /v1/admin/servers/{id}/launch`, `isolation-hub launch`) and to the member's page
// `/sessions`: the paired computers' sessions (each asked over its tunnel), a form to launch one,
// to create a workspace, and a button opening a session's terminal view.
#pragma once

#include "hubtunnel.h"
#include "http/httpserver.h"

#include <QJsonObject>
#include <QString>

#include <functional>

namespace isolation::hub {

class ActionLog;
class HubState;
class MemberPages;
class TunnelRegistry;
class ViewService;
class WorkspaceService;

class LaunchService
{
public:
    // `previewSource`: the CSP source of the views' origins (Terminal redirects there), e.g.
    // "http://*.preview.localhost:8471".
    LaunchService(HubState &state, TunnelRegistry &tunnels, WorkspaceService &workspaces, ViewService &views,
        MemberPages &pages, std::function<QByteArray()> previewSource);

    // Launches a session on `serverId`: `request` is {"workspace", "image"?, "agent"?,
    // "repositories"?: [{url, directory, branch?, tokenSecret?, username?, sshKeySecret?, sshPassphraseSecret?,
    // knownHosts?, insecureAcceptAnyHostKey?}], "secrets"?: {"NAME": "value"}};
    // the secrets go sealed to the server's key for the session the hub names.
    void launch(const QString &serverId, const QJsonObject &request, CallCallback done);
    // Resumes `session` on `serverId`: its own sandbox there, or — with "workspace" — the session
    // continuing there from what its suspend saved (another server suspended it). With "from", that
    // other server's copy is finished once the resume succeeded. `request`: {"session",
    // "workspace"?, "image"?, "from"?}.
    void resume(const QString &serverId, const QJsonObject &request, CallCallback done);
    void registerRoutes(HttpServer &app, std::function<bool(const HttpRequest &)> isAdmin);

private:
    void page(const HttpRequest &request, HttpReply reply);
    void post(const HttpRequest &request, HttpReply reply);
    // The page's Save, Sync and Changes buttons: session.<action> on the server, its outcome as
    // one line for the page (`ok` false: shown as a problem).
    void sessionCall(const QString &action, const QString &serverId, const QString &session,
        std::function<void(bool ok, const QString &text)> done);

    HubState &m_state;
    TunnelRegistry &m_tunnels;
    WorkspaceService &m_workspaces;
    ViewService &m_views;
    MemberPages &m_pages;
    std::function<QByteArray()> m_previewSource;
};

} // namespace isolation::hub
