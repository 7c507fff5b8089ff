// The Engine's LocalAPI routes (docs/architecture.md lists them). Handlers translate between
// HTTP/JSON and the facade's methods; they hold no behaviour of their own.
#include "engine.h"

#include "core/huburl.h"
#include "engineevents.h"
#include "http/httpserver.h"
#include "localapi/enginemetrics.h"
#include "localapi/localapiserver.h"
#include "pairing/pairingcontroller.h"
#include "runtime/runtimemanager.h"
#include "sessions/sessionmanager.h"
#include "sessions/sessionroutes.h"
#include "sessions/sessionsandboxes.h"

#include <QPointer>
#include <QTimer>

namespace isolation {

namespace {

HttpResponse statusError(const Error &e)
{
    switch (e.code) {
    case Error::Code::InvalidInput:
        return HttpResponse::error(409, QStringLiteral("conflict"), e.message);
    case Error::Code::NotFound:
        return HttpResponse::error(404, QStringLiteral("not_found"), e.message);
    case Error::Code::Unavailable:
        return HttpResponse::error(503, QStringLiteral("unavailable"), e.message);
    case Error::Code::Cancelled:
        return HttpResponse::error(409, QStringLiteral("cancelled"), e.message);
    case Error::Code::Failed:
        break;
    }
    return HttpResponse::error(500, QStringLiteral("internal"), e.message);
}

} // namespace

// Every LocalAPI route, in one place: the facade's own, then each module's at its boundary.
void Engine::registerRoutes()
{
    HttpServer &http = m_localApi->http();
    addControlRoutes(http);
    addPairingRoutes(http);
    addRuntimeRoutes(http);
    addHealthRoutes(http);
    SessionRoutes::add(http, [this] { return m_sessions.get(); });
    SessionSandboxes::addRoutes(http, [this] { return m_sandboxes.get(); });
    m_events = std::make_unique<EngineEvents>(this, http); // a new run id per start
    m_metrics = std::make_unique<EngineMetrics>(m_events->hub());
}

// Status, Disconnect / Connect, Stop the engine, settings.
void Engine::addControlRoutes(HttpServer &http)
{
    http.route("GET", QStringLiteral("/v1/status"),
        [this](const HttpRequest &, HttpReply reply) { reply.send(HttpResponse::json(200, status())); });
    // Disconnect / Connect: {"connected": bool} -> the status object.
    http.route("POST", QStringLiteral("/v1/tunnel"), [this](const HttpRequest &request, HttpReply reply) {
        QJsonObject body;
        QString why;
        if (!request.jsonBody(&body, &why) || !body.value(QStringLiteral("connected")).isBool()) {
            reply.send(HttpResponse::error(400, QStringLiteral("bad_request"),
                why.isEmpty() ? tr("The body must be {\"connected\": true|false}") : why));
            return;
        }
        if (!m_pairing || !m_pairing->identity()) {
            reply.send(HttpResponse::error(409, QStringLiteral("not_paired"), tr("This computer is not paired")));
            return;
        }
        if (auto s = setConnected(body.value(QStringLiteral("connected")).toBool()); !s) {
            reply.send(statusError(s.error()));
            return;
        }
        reply.send(HttpResponse::json(200, status()));
    });
    // Stop the engine: answer first, then drain and stop (the `up` process then exits 0).
    http.route("POST", QStringLiteral("/v1/shutdown"), [this](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::json(202, QJsonObject {{QStringLiteral("stopping"), true}}));
        // A moment for the answer to leave the socket before the LocalAPI closes.
        QTimer::singleShot(200, this, [this] { shutdown(); });
    });
    http.route("GET", QStringLiteral("/v1/settings"),
        [this](const HttpRequest &, HttpReply reply) { reply.send(HttpResponse::json(200, settingsJson())); });
    http.route("PUT", QStringLiteral("/v1/settings"), [this](const HttpRequest &request, HttpReply reply) {
        QJsonObject body;
        QString why;
        if (!request.jsonBody(&body, &why)) {
            reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
            return;
        }
        if (body.contains(QStringLiteral("hubUrl"))) {
            if (m_pairing && m_pairing->identity()) {
                reply.send(HttpResponse::error(409, QStringLiteral("paired"),
                    tr("This computer is paired: its hub is the one it is paired with. Unpair first")));
                return;
            }
            const QUrl hub(body.value(QStringLiteral("hubUrl")).toString());
            if (auto checked = HubUrl::check(hub); !checked || hub.isEmpty()) {
                reply.send(HttpResponse::error(
                    400, QStringLiteral("bad_request"), checked ? tr("hubUrl is empty") : checked.error().message));
                return;
            }
            m_settings.setHubUrl(hub);
            m_settings.sync();
        }
        reply.send(HttpResponse::json(200, settingsJson()));
    });
}

// Pairing: its state, a pairing started or cancelled, unpair.
void Engine::addPairingRoutes(HttpServer &http)
{
    http.route("GET", QStringLiteral("/v1/pair"),
        [this](const HttpRequest &, HttpReply reply) { reply.send(HttpResponse::json(200, pairingStatus())); });
    http.route("POST", QStringLiteral("/v1/pair"),
        [this](const HttpRequest &request, HttpReply reply) { routePair(request, reply); });
    http.route("DELETE", QStringLiteral("/v1/pair"), [this](const HttpRequest &, HttpReply reply) {
        cancelPairing();
        reply.send(HttpResponse::json(200, pairingStatus()));
    });
    http.route("POST", QStringLiteral("/v1/unpair"), [this](const HttpRequest &, HttpReply reply) {
        if (!m_pairing || !m_pairing->identity()) {
            reply.send(HttpResponse::error(409, QStringLiteral("not_paired"), tr("This computer is not paired")));
            return;
        }
        // Answer once the credentials are gone, so `unpair` returning means it is done.
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection
            = connect(m_pairing.get(), &PairingController::unpaired, this, [reply, connection](const QString &reason) {
                  QObject::disconnect(*connection);
                  reply.send(HttpResponse::json(
                      200, QJsonObject {{QStringLiteral("paired"), false}, {QStringLiteral("reason"), reason}}));
              });
        unpair();
    });
}

// The sandbox runtime: its state, and a restart.
void Engine::addRuntimeRoutes(HttpServer &http)
{
    http.route("GET", QStringLiteral("/v1/runtime"),
        [this](const HttpRequest &, HttpReply reply) { reply.send(HttpResponse::json(200, runtimeStatus())); });
    http.route("POST", QStringLiteral("/v1/runtime/restart"), [this](const HttpRequest &, HttpReply reply) {
        if (!m_runtime) {
            reply.send(HttpResponse::error(
                409, QStringLiteral("runtime_off"), runtimeStatus().value(QStringLiteral("reason")).toString()));
            return;
        }
        // Answer once the runtime is back (or could not be), so `runtime restart` returning means it is done.
        QPointer<Engine> self(this);
        m_runtime->restart([self, reply](Status s) {
            if (!s) {
                reply.send(HttpResponse::error(502, QStringLiteral("runtime_failed"), s.error().message));
                return;
            }
            reply.send(HttpResponse::json(200, self ? self->runtimeStatus() : QJsonObject {}));
        });
    });
}

QJsonObject Engine::settingsJson() const
{
    return QJsonObject {{QStringLiteral("hubUrl"), m_settings.hubUrl().toString()}};
}

void Engine::routePair(const HttpRequest &request, HttpReply reply)
{
    QJsonObject body;
    QString why;
    if (!request.jsonBody(&body, &why)) {
        reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), why));
        return;
    }
    const QUrl hub(body.value(QStringLiteral("hub")).toString());
    // A hub the engine refuses is a bad request (not a state conflict): nothing was started.
    if (auto checked = HubUrl::check(hub.isEmpty() ? m_settings.hubUrl() : hub); !checked) {
        reply.send(HttpResponse::error(400, QStringLiteral("bad_request"), checked.error().message));
        return;
    }
    if (auto s = startPairing(hub, body.value(QStringLiteral("name")).toString()); !s) {
        reply.send(statusError(s.error()));
        return;
    }
    // Answer when the code is issued (or the flow already ended), so the caller can show it.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(this, &Engine::pairingChanged, this, [this, reply, connection] {
        const QJsonObject s = pairingStatus();
        const QString state = s.value(QStringLiteral("state")).toString();
        if (state == QLatin1String("starting"))
            return;
        QObject::disconnect(*connection);
        const bool ok = state == QLatin1String("waiting_for_approval") || state == QLatin1String("approved")
            || state == QLatin1String("storing");
        reply.send(ok ? HttpResponse::json(200, s)
                      : HttpResponse::error(
                          502, QStringLiteral("pairing_failed"), s.value(QStringLiteral("reason")).toString()));
    });
}

} // namespace isolation
