// isolation-hub's server: the cloud's protocol (docs/protocol.md) on two origins — the app
// origin (API, admin, pages) and the preview origin (views, one host name per view).
#pragma once

#include "core/result.h"
#include "http/httpserver.h"
#include "tunnelregistry.h"

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QUrl>

namespace isolation::hub {

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
    };

    explicit HubServer(Options options, QObject *parent = nullptr);

    // Opens both origins and writes DIR/admin.json (URL and admin token, mode 0600).
    Status start();
    void stop();

    QUrl appUrl() const;
    QUrl previewUrl() const;
    QString adminFile() const;

    // Decides which tunnel upgrades are accepted (pairing's server registry plugs in here).
    // Without one, every tunnel is refused with 401.
    void setTunnelVerifier(TunnelRegistry::Verifier verifier) { m_tunnels.setVerifier(std::move(verifier)); }
    TunnelRegistry &tunnels() { return m_tunnels; }

private:
    void registerAppRoutes();
    void registerPreviewRoutes();
    void registerTunnelRoutes();
    bool isAdmin(const HttpRequest &request) const;

    Options m_options;
    HttpServer m_app;
    HttpServer m_preview;
    TunnelRegistry m_tunnels;
    quint16 m_appPort = 0;
    quint16 m_previewPort = 0;
    QByteArray m_adminToken;
};

} // namespace isolation::hub
