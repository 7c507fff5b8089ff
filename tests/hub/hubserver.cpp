#include "hubserver.h"

#include "actionlog.h"
#include "hubstate.h"
#include "pairingservice.h"
#include "serverservice.h"
#include "workspaceservice.h"

#include "crypto/consttime.h"
#include "crypto/random.h"

#include "core/version.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSaveFile>

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
{
    registerAppRoutes();
    registerPreviewRoutes();
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
    m_pairing = std::make_unique<PairingService>(*m_state, *m_log, pairing);
    m_pairing->registerRoutes(
        m_app, [this] { return appUrl(); }, admin);
    m_servers = std::make_unique<ServerService>(*m_state, *m_log, m_options.heartbeatIntervalSeconds);
    m_servers->registerRoutes(m_app, admin);
    WorkspaceService::Options workspaces;
    workspaces.tokenLifetimeSeconds = m_options.workspaceTokenLifetimeSeconds;
    m_workspaces = std::make_unique<WorkspaceService>(
        *m_state, *m_log, *m_servers, m_options.dataDir + QStringLiteral("/workspaces"), workspaces);
    m_workspaces->registerRoutes(m_app, admin);
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
            "<ul><li><a href=\"/pair\">Pair a computer</a> (type the code it shows)</li></ul></body></html>",
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
