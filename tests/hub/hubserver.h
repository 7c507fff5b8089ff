// isolation-hub's server: the cloud's protocol (docs/protocol.md) on two origins — the app
// origin (API, admin, pages) and the preview origin (views, one host name per view).
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "http/httpserver.h"
#include "memberpages.h"
#include "requestguard.h"
#include "tunnelregistry.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QUrl>

#include <memory>

namespace isolation::hub {

class ActionLog;
class HubState;
class LaunchService;
class PairingService;
class ServerService;
class TunnelAuthenticator;
class ViewRelay;
class ViewService;
class WorkspaceService;

class HubServer final : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString dataDir;
        QHostAddress listenAddress = QHostAddress::LocalHost;
        quint16 listenPort = 8470;
        QHostAddress previewAddress = QHostAddress::LocalHost;
        quint16 previewPort = 8471;
        int codeLifetimeSeconds = 600; // pairing codes live this long
        int pollIntervalSeconds = 5; // the device-code poll interval handed out
        int heartbeatIntervalSeconds = 15; // the heartbeat interval servers are told to keep
        int workspaceTokenLifetimeSeconds = 900; // per-workspace bearers live this long
        // Host names the app origin answers besides those of listenAddress (a LAN name).
        QStringList publicHosts;
    };

    explicit HubServer(Options options, QObject *parent = nullptr);
    ~HubServer() override;

    // Opens both origins and writes DIR/admin.json (URL and admin token, mode 0600).
    Status start();
    void stop();

    QUrl appUrl() const;
    QUrl previewUrl() const;
    QString adminFile() const;
    // The member pages' sign-in token when start() made it (a non-loopback --listen, first start),
    // for printing once; empty otherwise.
    QByteArray newSignInToken() const { return m_newSignInToken; }
    bool signInRequired() const { return m_pages.signInRequired(); }

    // Decides which tunnel upgrades are accepted (pairing's server registry plugs in here).
    // Without one, every tunnel is refused with 401.
    // Tests may plug in their own; otherwise start() uses the server registry.
    void setTunnelVerifier(TunnelRegistry::Verifier verifier)
    {
        m_verifierOverridden = true;
        m_tunnels.setVerifier(std::move(verifier));
    }
    TunnelRegistry &tunnels() { return m_tunnels; }

private:
    void registerAppRoutes();
    void registerModules();
    void registerPreviewRoutes();
    void registerTunnelRoutes();
    bool isAdmin(const HttpRequest &request) const;
    std::optional<HttpResponse> admit(const HttpRequest &request) const;

    Options m_options;
    HttpServer m_app;
    HttpServer m_preview;
    TunnelRegistry m_tunnels;
    quint16 m_appPort = 0;
    quint16 m_previewPort = 0;
    QByteArray m_adminToken;
    std::unique_ptr<HubState> m_state;
    std::unique_ptr<ActionLog> m_log;
    MemberPages m_pages; // before the services that use it
    RequestGuard m_appGuard; // the host names the app origin answers
    QByteArray m_newSignInToken;
    std::unique_ptr<PairingService> m_pairing;
    std::unique_ptr<ServerService> m_servers;
    SystemClock m_clock;
    std::unique_ptr<TunnelAuthenticator> m_tunnelAuth;
    bool m_verifierOverridden = false;
    std::unique_ptr<WorkspaceService> m_workspaces;
    std::unique_ptr<ViewService> m_views;
    std::unique_ptr<LaunchService> m_launches;
    ViewRelay *m_viewRelay = nullptr;
};

} // namespace isolation::hub
