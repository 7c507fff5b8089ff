#include "hubserver.h"

#include "actionlog.h"
#include "hubstate.h"
#include "launchservice.h"
#include "memberpages.h"
#include "pairingservice.h"
#include "serverservice.h"
#include "tunnelauthenticator.h"
#include "viewrelay.h"
#include "viewservice.h"
#include "workspaceservice.h"

#include "crypto/consttime.h"
#include "crypto/ed25519.h"
#include "crypto/random.h"

#include "core/version.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSaveFile>

#include "net/tcpstream.h"

Q_LOGGING_CATEGORY(lcHub, "isolation.hub")

namespace isolation::hub {

namespace {

QString hostForUrl(const QHostAddress &address)
{
    if (address.isLoopback() || address == QHostAddress(QHostAddress::AnyIPv4)
        || address == QHostAddress(QHostAddress::Any))
        return QStringLiteral("127.0.0.1");
    if (address.protocol() == QAbstractSocket::IPv6Protocol)
        return QLatin1Char('[') + address.toString() + QLatin1Char(']');
    return address.toString();
}

} // namespace

HubServer::HubServer(Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_app(this)
    , m_preview(this)
    , m_tunnels(this)
{
    // Every request to the app origin passes admit() first, whichever module's route it is for.
    m_app.setGate([this](const HttpRequest &request) { return admit(request); });
    registerAppRoutes();
    registerPreviewRoutes();
    registerTunnelRoutes();
}

HubServer::~HubServer() = default;

Status HubServer::start()
{
    if (!QDir().mkpath(m_options.dataDir))
        return Error::failed(QStringLiteral("cannot create the data directory %1").arg(m_options.dataDir));
    QFile::setPermissions(m_options.dataDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    m_state = std::make_unique<HubState>(m_options.dataDir + QStringLiteral("/state.json"));
    if (auto s = m_state->load(); !s)
        return s;
    m_log = std::make_unique<ActionLog>(m_options.dataDir + QStringLiteral("/actions.log"));
    registerModules();
    if (auto s = m_workspaces->load(); !s)
        return s;
    if (auto s = m_views->load(); !s)
        return s;

    // The app origin carries the tunnels (WebSocketLink reads any stream device): TcpStreams, the
    // data plane's sockets, rather than QTcpSockets.
    m_app.setStreamSockets(true);
    auto app = m_app.listenTcp(m_options.listenAddress, m_options.listenPort);
    if (!app)
        return app.error();
    m_appPort = app.value();
    auto preview = m_preview.listenTcp(m_options.previewAddress, m_options.previewPort);
    if (!preview) {
        m_app.close();
        return preview.error();
    }
    m_previewPort = preview.value();
    m_appGuard.setNames(RequestGuard::appNames(m_options.listenAddress, m_options.publicHosts));
    // Beyond loopback anyone who reaches the port could be "the member": the pages want a token.
    if (!m_options.listenAddress.isLoopback()) {
        auto token = m_pages.requireSignIn(m_options.dataDir + QStringLiteral("/signin.json"));
        if (!token) {
            m_app.close();
            m_preview.close();
            return token.error();
        }
        m_newSignInToken = token.value();
    }

    m_adminToken = randomBytes(32).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    QSaveFile file(adminFile());
    if (!file.open(QIODevice::WriteOnly))
        return Error::failed(QStringLiteral("cannot write %1").arg(adminFile()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(
        QJsonObject {{QStringLiteral("url"), appUrl().toString()}, {QStringLiteral("preview"), previewUrl().toString()},
            {QStringLiteral("token"), QString::fromLatin1(m_adminToken)},
            {QStringLiteral("pid"), QCoreApplication::applicationPid()}})
                   .toJson());
    if (!file.commit())
        return Error::failed(QStringLiteral("cannot write %1").arg(adminFile()));
    qCInfo(lcHub) << "hub serving app origin" << appUrl().toString() << "and preview origin" << previewUrl().toString();
    return {};
}

void HubServer::stop()
{
    m_tunnels.closeAll(QStringLiteral("the hub is stopping"));
    m_app.close();
    m_preview.close();
}

QUrl HubServer::appUrl() const
{
    return QUrl(QStringLiteral("http://%1:%2").arg(hostForUrl(m_options.listenAddress)).arg(m_appPort));
}

QUrl HubServer::previewUrl() const
{
    // Views live on <viewId>.preview.localhost, never on the app origin's host name.
    return QUrl(QStringLiteral("http://preview.localhost:%1").arg(m_previewPort));
}

QString HubServer::adminFile() const
{
    return m_options.dataDir + QStringLiteral("/admin.json");
}

bool HubServer::isAdmin(const HttpRequest &request) const
{
    return !m_adminToken.isEmpty() && constantTimeEquals(request.bearerToken(), m_adminToken);
}

std::optional<HttpResponse> HubServer::admit(const HttpRequest &request) const
{
    // A name we do not serve is a page that rebound its own name to this address (DNS
    // rebinding): it gets nothing of ours, not even a page session.
    if (!m_appGuard.servesHost(request))
        return RequestGuard::misdirected();
    // Engines and CLIs send no Origin; a browser always does on a POST, and another site's page
    // must not change anything here (API routes included).
    if (RequestGuard::unsafeMethod(request.method) && RequestGuard::foreignOrigin(request))
        return RequestGuard::crossOrigin();
    // The API (/v1/...) authenticates each call by its bearer; everything else is the member's.
    const bool api = request.path.startsWith(QLatin1String("/v1/"));
    if (m_pages.signInRequired() && !api && request.path != QLatin1String("/signin") && !m_pages.signedIn(request))
        return MemberPages::signInPage(401, QString::fromLatin1(request.target));
    return std::nullopt;
}

void HubServer::registerAppRoutes()
{
    m_app.route("GET", QStringLiteral("/v1/health"), [](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::json(200,
            QJsonObject {{QStringLiteral("status"), QStringLiteral("ok")},
                {QStringLiteral("version"), QStringLiteral(ISOLATION_VERSION)},
                {QStringLiteral("protocol"), ISOLATION_PROTOCOL_VERSION}}));
    });
    m_app.route("GET", QStringLiteral("/v1/admin/status"), [this](const HttpRequest &request, HttpReply reply) {
        if (!isAdmin(request)) {
            reply.send(
                HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
            return;
        }
        reply.send(HttpResponse::json(200,
            QJsonObject {{QStringLiteral("app"), appUrl().toString()},
                {QStringLiteral("preview"), previewUrl().toString()}, {QStringLiteral("data"), m_options.dataDir}}));
    });
}

void HubServer::registerModules()
{
    auto admin = [this](const HttpRequest &request) { return isAdmin(request); };
    PairingService::Options pairing;
    pairing.codeLifetimeSeconds = m_options.codeLifetimeSeconds;
    pairing.pollIntervalSeconds = m_options.pollIntervalSeconds;
    pairing.heartbeatIntervalSeconds = m_options.heartbeatIntervalSeconds;
    m_pairing = std::make_unique<PairingService>(*m_state, *m_log, m_pages, pairing);
    m_pages.registerRoutes(m_app);
    m_pairing->registerRoutes(
        m_app, [this] { return appUrl(); }, admin);
    m_servers = std::make_unique<ServerService>(*m_state, *m_log, m_options.heartbeatIntervalSeconds);
    m_servers->registerRoutes(m_app, admin);

    // Tunnels: only a paired, unrevoked server, proving its credential and its Ed25519 key.
    m_tunnelAuth = std::make_unique<TunnelAuthenticator>(
        [this](const QString &id) -> std::optional<TunnelAuthenticator::Server> {
            const ServerRecord *server = m_state->server(id);
            if (!server || server->revoked)
                return std::nullopt;
            const QByteArray key = server->ed25519Public;
            return TunnelAuthenticator::Server {
                server->credentialHash, [key](const QByteArray &message, const QByteArray &signature) {
                    return ed25519Verify(key, message, signature);
                }};
        },
        m_clock);
    if (!m_verifierOverridden)
        m_tunnels.setVerifier([this](const HttpRequest &request) { return m_tunnelAuth->verify(request); });
    connect(m_servers.get(), &ServerService::serverRevoked, this,
        [this](const QString &id) { m_tunnels.close(id, QStringLiteral("the server was revoked")); });
    connect(&m_tunnels, &TunnelRegistry::tunnelUp, this, [this](const QString &id) {
        m_log->record(QStringLiteral("tunnel.up"), {{QStringLiteral("server"), id}});
    });
    connect(&m_tunnels, &TunnelRegistry::tunnelDown, this, [this](const QString &id) {
        m_log->record(QStringLiteral("tunnel.down"), {{QStringLiteral("server"), id}});
    });
    WorkspaceService::Options workspaces;
    workspaces.tokenLifetimeSeconds = m_options.workspaceTokenLifetimeSeconds;
    m_workspaces = std::make_unique<WorkspaceService>(
        *m_state, *m_log, *m_servers, m_clock, m_options.dataDir + QStringLiteral("/workspaces"), workspaces);
    m_workspaces->registerRoutes(m_app, admin);
    // Views: minted here, relayed on the preview origin to the view's server (docs/protocol.md).
    m_views = std::make_unique<ViewService>(*m_state, *m_log, m_clock,
        m_options.dataDir + QStringLiteral("/views.json"), [this](const QString &viewId) -> QString {
            return viewId + QStringLiteral(".preview.localhost:%1").arg(m_previewPort);
        });
    m_views->registerRoutes(m_app, admin);
    m_launches = std::make_unique<LaunchService>(
        *m_state, m_tunnels, *m_workspaces, *m_views, m_pages, [this]() -> QByteArray {
            return QByteArray("http://*.preview.localhost:") + QByteArray::number(m_previewPort);
        });
    m_launches->registerRoutes(m_app, admin);
    m_viewRelay = new ViewRelay(*m_views, m_tunnels, QStringLiteral("preview.localhost"), this);
    m_viewRelay->registerRoutes(m_preview);
    m_app.route("GET", QStringLiteral("/v1/admin/log"), [this](const HttpRequest &request, HttpReply reply) {
        if (!isAdmin(request)) {
            reply.send(
                HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
            return;
        }
        reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("actions"), m_log->recent()}}));
    });
    m_app.route("GET", QStringLiteral("/"), [](const HttpRequest &, HttpReply reply) {
        HttpResponse r = HttpResponse::text(200,
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Isolation local hub</title></head>"
            "<body style=\"font:16px system-ui,sans-serif;max-width:34em;margin:3em auto\"><h1>Isolation local hub</h1>"
            "<p>This hub speaks the Isolation cloud's protocol on this machine.</p>"
            "<ul><li><a href=\"/pair\">Pair a computer</a> (type the code it shows)</li>"
            "<li><a href=\"/sessions\">Sessions</a> (launch one on a paired computer, open its terminal)</li>"
            "<li><a href=\"/views\">Views</a> (terminals, previews and files of sessions)</li></ul></body></html>",
            "text/html; charset=utf-8");
        reply.send(r);
    });
}

void HubServer::registerPreviewRoutes()
{
    m_preview.setFallback([](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::error(404, QStringLiteral("no_such_view"), QStringLiteral("no such view")));
    });
}

} // namespace isolation::hub

namespace isolation::hub {

void HubServer::registerTunnelRoutes()
{
    m_app.setUpgradeHandler(
        [this](const HttpRequest &request, QIODevice *device, const QByteArray &head, const QByteArray &rest) {
            if (!m_appGuard.servesHost(request)) {
                device->write("HTTP/1.1 421 Misdirected Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                disconnectDevice(device);
                return true;
            }
            return m_tunnels.handleUpgrade(request, device, head, rest);
        });

    // Calls a method on a connected server through its tunnel: {"method", "params", "timeoutMs"}.
    m_app.route(
        "POST", QStringLiteral("/v1/admin/servers/{id}/call"), [this](const HttpRequest &request, HttpReply reply) {
            if (!isAdmin(request)) {
                reply.send(
                    HttpResponse::error(401, QStringLiteral("unauthorized"), QStringLiteral("admin token required")));
                return;
            }
            QJsonObject body;
            QString why;
            if (!request.jsonBody(&body, &why)) {
                reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
                return;
            }
            const QString method = body.value(QStringLiteral("method")).toString();
            const QJsonValue params = body.value(QStringLiteral("params"));
            if (method.isEmpty() || !(params.isUndefined() || params.isNull() || params.isObject())) {
                reply.send(HttpResponse::error(400, QStringLiteral("bad_request"),
                    QStringLiteral("expected {\"method\": string, \"params\": object}")));
                return;
            }
            const qint64 timeoutMs
                = std::clamp<qint64>(body.value(QStringLiteral("timeoutMs")).toInteger(30000), 1, 300000);
            m_tunnels.call(request.params.value(QStringLiteral("id")), method, params.toObject(),
                std::chrono::milliseconds(timeoutMs),
                [reply](CallResult result) { TunnelRegistry::answer(reply, result); });
        });
}

} // namespace isolation::hub
