#include "standinlifecycle.h"

#include "../requestlog.h"
#include "crypto/consttime.h"
#include "crypto/random.h"

#include <QDateTime>
#include <QDir>
#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTimer>
#include <QUrlQuery>

#include <toml++/toml.h>

namespace isolation::standin {

namespace {

const QString kPrefix = QStringLiteral("io.isolation.standin.");
const QString kExecdDir = QStringLiteral("/opt/isolation-standin");
// Snapshots are images committed from a sandbox's container: this repository, the snapshot id as tag.
const QString kSnapshotRepo = QStringLiteral("isolation-standin-snapshot");
constexpr int kExecdPort = 44772;

HttpResponse apiError(int status, const char *code, const QString &message)
{
    return HttpResponse::json(
        status, QJsonObject {{QStringLiteral("code"), QLatin1String(code)}, {QStringLiteral("message"), message}});
}

QStringList strings(const toml::node_view<const toml::node> &array)
{
    QStringList out;
    if (const toml::array *a = array.as_array()) {
        for (const toml::node &item : *a) {
            if (auto s = item.value<std::string>())
                out << QString::fromStdString(*s);
        }
    }
    return out;
}

// Kubernetes-style quantities, as ResourceLimits carries them: "500m" CPUs, "512Mi" bytes.
qint64 nanoCpus(const QString &v)
{
    if (v.endsWith(QLatin1Char('m')))
        return qint64(v.chopped(1).toDouble() * 1e6);
    return qint64(v.toDouble() * 1e9);
}

qint64 bytes(const QString &v)
{
    static const QList<QPair<QString, qint64>> units {{QStringLiteral("Ki"), 1LL << 10},
        {QStringLiteral("Mi"), 1LL << 20}, {QStringLiteral("Gi"), 1LL << 30}, {QStringLiteral("Ti"), 1LL << 40}};
    for (const auto &[suffix, factor] : units)
        if (v.endsWith(suffix))
            return qint64(v.chopped(2).toDouble() * double(factor));
    return v.toLongLong();
}

} // namespace

Result<StandinConfig> StandinConfig::fromToml(const QString &path)
{
    toml::table parsed;
    try {
        parsed = toml::parse_file(QFile::encodeName(path).toStdString());
    } catch (const toml::parse_error &e) {
        return Error::invalidInput(QStringLiteral("%1: %2").arg(path, QString::fromUtf8(e.what())));
    }
    const toml::table &root = parsed;
    StandinConfig c;
    if (!root["server"].is_table())
        return Error::invalidInput(QStringLiteral("%1 has no [server]").arg(path));
    c.host = QString::fromStdString(root["server"]["host"].value_or(std::string("0.0.0.0")));
    c.port = quint16(root["server"]["port"].value_or(int64_t(8080)));
    c.apiKey = QByteArray::fromStdString(root["server"]["api_key"].value_or(std::string()));
    c.execdImage = QString::fromStdString(root["runtime"]["execd_image"].value_or(std::string()));
    c.allowedHostPaths = strings(root["storage"]["allowed_host_paths"]);
    c.dropCapabilities = strings(root["docker"]["drop_capabilities"]);
    c.noNewPrivileges = root["docker"]["no_new_privileges"].value_or(true);
    c.pidsLimit = root["docker"]["pids_limit"].value_or(int64_t(0));
    if (auto mode = root["docker"]["network_mode"].value<std::string>())
        c.networkMode = QString::fromStdString(*mode).toLower();
    if (c.networkMode == QLatin1String("host"))
        return Error::invalidInput(QStringLiteral("%1: network_mode host is not served by the stand-in").arg(path));
    if (c.execdImage.isEmpty())
        return Error::invalidInput(QStringLiteral("%1 names no [runtime] execd_image").arg(path));
    return c;
}

StandinLifecycle::StandinLifecycle(StandinConfig config, DockerClient docker, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_docker(std::move(docker))
{
    routes();
}

Status StandinLifecycle::start()
{
    if (auto v = m_docker.negotiate(); !v)
        return Error::unavailable(v.error().message);
    auto volume = execdVolume();
    if (!volume)
        return volume.error();
    m_volume = volume.value();
    auto port = m_http.listenTcp(QHostAddress(m_config.host), m_config.port);
    if (!port)
        return port.error();
    return {};
}

// execd reaches every sandbox through a named volume filled from the execd image (Docker copies
// the image's /opt/isolation-standin into an empty volume mounted there) and mounted read-only.
Result<QString> StandinLifecycle::execdVolume()
{
    auto image = m_docker.inspectImage(m_config.execdImage);
    if (!image)
        return Error::unavailable(image.error().message);
    const QString id = image.value().value(QStringLiteral("Id")).toString();
    const QString name = QStringLiteral("isolation-standin-execd-") + id.mid(7, 12);
    if (m_docker.call("GET", QStringLiteral("/volumes/%1").arg(name)))
        return name;
    auto filler = m_docker.createContainer({},
        QJsonObject {
            {QStringLiteral("Image"), id},
            {QStringLiteral("Cmd"), QJsonArray {QString(kExecdDir + QStringLiteral("/bin/isolation-standin-execd"))}},
            {QStringLiteral("HostConfig"),
                QJsonObject {{QStringLiteral("Binds"), QJsonArray {QString(name + QLatin1Char(':') + kExecdDir)}}}},
        });
    if (!filler)
        return Error::failed(QStringLiteral("cannot fill the execd volume: %1").arg(filler.error().message));
    (void)m_docker.removeContainer(filler.value());
    return name;
}

void StandinLifecycle::routes()
{
    m_http.route("GET", QStringLiteral("/health"), [](const HttpRequest &, HttpReply reply) {
        reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("status"), QStringLiteral("healthy")}}));
    });
    auto guarded = [this](void (StandinLifecycle::*handler)(const HttpRequest &, HttpReply)) {
        return [this, handler](const HttpRequest &request, HttpReply reply) {
            if (authorized(request, reply))
                (this->*handler)(request, reply);
        };
    };
    m_http.route("POST", QStringLiteral("/v1/sandboxes"), guarded(&StandinLifecycle::create));
    m_http.route("GET", QStringLiteral("/v1/sandboxes/{id}"), guarded(&StandinLifecycle::get));
    m_http.route("DELETE", QStringLiteral("/v1/sandboxes/{id}"), guarded(&StandinLifecycle::remove));
    m_http.route("POST", QStringLiteral("/v1/sandboxes/{id}/pause"), [this](const HttpRequest &r, HttpReply reply) {
        if (authorized(r, reply))
            transition(r, reply, "pause");
    });
    m_http.route("POST", QStringLiteral("/v1/sandboxes/{id}/resume"), [this](const HttpRequest &r, HttpReply reply) {
        if (authorized(r, reply))
            transition(r, reply, "unpause");
    });
    m_http.route("GET", QStringLiteral("/v1/sandboxes/{id}/endpoints/{port}"), guarded(&StandinLifecycle::endpoint));
    m_http.route("POST", QStringLiteral("/v1/sandboxes/{id}/snapshots"), guarded(&StandinLifecycle::createSnapshot));
    m_http.route("GET", QStringLiteral("/v1/snapshots/{id}"), guarded(&StandinLifecycle::getSnapshot));
    m_http.route("DELETE", QStringLiteral("/v1/snapshots/{id}"), guarded(&StandinLifecycle::deleteSnapshot));
    m_http.setFallback([this](const HttpRequest &request, HttpReply reply) {
        if (authorized(request, reply))
            reply.send(apiError(404, "NOT_FOUND",
                QStringLiteral("the stand-in does not implement %1 %2")
                    .arg(QString::fromLatin1(request.method), request.path)));
    });
}

bool StandinLifecycle::authorized(const HttpRequest &request, HttpReply reply) const
{
    const QByteArray key = request.header("OPEN-SANDBOX-API-KEY");
    if (m_config.apiKey.isEmpty() || (!key.isEmpty() && constantTimeEquals(key, m_config.apiKey))) {
        recordRequest("lifecycle", request);
        return true;
    }
    reply.send(apiError(401, "UNAUTHORIZED",
        key.isEmpty() ? QStringLiteral("missing OPEN-SANDBOX-API-KEY header") : QStringLiteral("invalid API key")));
    return false;
}

void StandinLifecycle::create(const HttpRequest &request, HttpReply reply)
{
    QJsonObject body;
    QString why;
    if (!request.jsonBody(&body, &why))
        return reply.send(apiError(400, "INVALID_REQUEST", why));
    QString image = body.value(QStringLiteral("image")).toObject().value(QStringLiteral("uri")).toString();
    const QString snapshotId = body.value(QStringLiteral("snapshotId")).toString();
    QJsonArray entrypoint = body.value(QStringLiteral("entrypoint")).toArray();
    if (image.isEmpty() == snapshotId.isEmpty())
        return reply.send(apiError(400, "INVALID_REQUEST", QStringLiteral("exactly one of image and snapshotId is required")));
    if (!snapshotId.isEmpty()) {
        const auto snap = snapshot(snapshotId);
        if (!snap || snap->value(QStringLiteral("status")).toObject().value(QStringLiteral("state")) != QLatin1String("Ready"))
            return reply.send(apiError(400, "INVALID_REQUEST", QStringLiteral("no ready snapshot %1").arg(snapshotId)));
        image = kSnapshotRepo + QLatin1Char(':') + snapshotId;
        if (entrypoint.isEmpty())
            entrypoint = QJsonArray {QStringLiteral("tail"), QStringLiteral("-f"), QStringLiteral("/dev/null")};
    }
    if (entrypoint.isEmpty())
        return reply.send(apiError(400, "INVALID_REQUEST", QStringLiteral("entrypoint is required with image")));

    QJsonArray binds {QString(m_volume + QLatin1Char(':') + kExecdDir + QStringLiteral(":ro"))};
    for (const QJsonValue &v : body.value(QStringLiteral("volumes")).toArray()) {
        const QJsonObject volume = v.toObject();
        const QString host
            = QDir::cleanPath(volume.value(QStringLiteral("host")).toObject().value(QStringLiteral("path")).toString());
        bool allowed = false;
        for (const QString &prefix : std::as_const(m_config.allowedHostPaths))
            allowed = allowed || host == prefix || host.startsWith(prefix + QLatin1Char('/'));
        if (!allowed)
            return reply.send(apiError(400, "INVALID_REQUEST",
                QStringLiteral("host path %1 is not under storage.allowed_host_paths").arg(host)));
        binds.append(QStringLiteral("%1:%2%3").arg(host, volume.value(QStringLiteral("mountPath")).toString(),
            volume.value(QStringLiteral("readOnly")).toBool() ? QStringLiteral(":ro") : QString()));
    }
    // A user-defined network must exist, as the real server checks (_validate_network_exists).
    const QString network = m_config.networkMode;
    const bool userDefined = network != QLatin1String("bridge") && network != QLatin1String("none")
        && !network.startsWith(QLatin1String("container:"));
    if (userDefined && !m_docker.call("GET", QStringLiteral("/networks/") + network)) {
        return reply.send(apiError(400, "INVALID_PARAMETER",
            QStringLiteral("Docker network '%1' does not exist. Create it first with 'docker network create <name>'.")
                .arg(network)));
    }
    QJsonArray env {QStringLiteral("ASAN_OPTIONS=detect_leaks=0")};
    const QJsonObject envs = body.value(QStringLiteral("env")).toObject();
    for (auto it = envs.begin(); it != envs.end(); ++it)
        env.append(QString(it.key() + QLatin1Char('=') + it.value().toString()));

    const QString id = QString::fromLatin1(randomBytes(8).toHex());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    // `by`: this server's container (its host name is the container's short id), for clean-ups.
    QJsonObject labels {{QString(kPrefix + QStringLiteral("by")), QHostInfo::localHostName()},
        {QString(kPrefix + QStringLiteral("sandbox")), id}, {QString(kPrefix + QStringLiteral("image")), image},
        {QString(kPrefix + QStringLiteral("created")), now.toString(Qt::ISODate)},
        {QString(kPrefix + QStringLiteral("entrypoint")),
            QString::fromUtf8(QJsonDocument(entrypoint).toJson(QJsonDocument::Compact))},
        {QString(kPrefix + QStringLiteral("metadata")),
            QString::fromUtf8(
                QJsonDocument(body.value(QStringLiteral("metadata")).toObject()).toJson(QJsonDocument::Compact))}};
    const QJsonObject limits = body.value(QStringLiteral("resourceLimits")).toObject();
    // Published on every interface, as the real server does (port_allocator.py: DOCKER_PUBLISH_HOST
    // "0.0.0.0"; an explicit host IP overrides the network's host_binding_ipv4): the stand-in must
    // not make execd look more private than it is. See docs/runtime.md, "execd's access token".
    QJsonObject host {
        {QStringLiteral("Binds"), binds},
        {QStringLiteral("NetworkMode"), network},
        {QStringLiteral("PortBindings"),
            QJsonObject {{QStringLiteral("%1/tcp").arg(kExecdPort),
                QJsonArray {QJsonObject {{QStringLiteral("HostIp"), QStringLiteral("0.0.0.0")},
                    {QStringLiteral("HostPort"), QString()}}}}}},
        {QStringLiteral("CapDrop"), QJsonArray::fromStringList(m_config.dropCapabilities)},
    };
    if (m_config.noNewPrivileges)
        host.insert(QStringLiteral("SecurityOpt"), QJsonArray {QStringLiteral("no-new-privileges")});
    if (m_config.pidsLimit > 0)
        host.insert(QStringLiteral("PidsLimit"), m_config.pidsLimit);
    if (limits.contains(QStringLiteral("cpu")))
        host.insert(QStringLiteral("NanoCpus"), nanoCpus(limits.value(QStringLiteral("cpu")).toString()));
    if (limits.contains(QStringLiteral("memory")))
        host.insert(QStringLiteral("Memory"), bytes(limits.value(QStringLiteral("memory")).toString()));
    const QJsonArray loader {QString(kExecdDir + QStringLiteral("/lib/ld-linux-x86-64.so.2")),
        QStringLiteral("--library-path"), QString(kExecdDir + QStringLiteral("/lib")),
        QString(kExecdDir + QStringLiteral("/bin/isolation-standin-execd")), QStringLiteral("--")};
    const QJsonObject spec {
        {QStringLiteral("Image"), image},
        {QStringLiteral("Entrypoint"), loader},
        {QStringLiteral("Cmd"), entrypoint},
        {QStringLiteral("Env"), env},
        {QStringLiteral("Labels"), labels},
        {QStringLiteral("ExposedPorts"), QJsonObject {{QStringLiteral("%1/tcp").arg(kExecdPort), QJsonObject {}}}},
        {QStringLiteral("HostConfig"), host},
    };
    auto created = m_docker.createContainer(QStringLiteral("isolation-standin-sandbox-") + id, spec);
    if (!created)
        return reply.send(apiError(created.error().code == DockerError::Code::NotFound ? 400 : 500,
            created.error().code == DockerError::Code::NotFound ? "INVALID_REQUEST" : "INTERNAL_ERROR",
            created.error().message));
    if (auto s = m_docker.startContainer(created.value()); !s) {
        (void)m_docker.removeContainer(created.value());
        return reply.send(apiError(500, "INTERNAL_ERROR", s.error().message));
    }
    QJsonObject answer {{QStringLiteral("id"), id},
        {QStringLiteral("status"),
            QJsonObject {{QStringLiteral("state"), QStringLiteral("Pending")},
                {QStringLiteral("reason"), QStringLiteral("container_started")}}},
        {QStringLiteral("metadata"), body.value(QStringLiteral("metadata")).toObject()},
        {QStringLiteral("createdAt"), now.toString(Qt::ISODate)}, {QStringLiteral("entrypoint"), entrypoint}};
    reply.send(HttpResponse::json(202, answer));
}

Result<QJsonObject> StandinLifecycle::sandbox(const QString &id) const
{
    auto c = m_docker.inspectContainer(QStringLiteral("isolation-standin-sandbox-") + id);
    if (!c)
        return c.error().code == DockerError::Code::NotFound ? Error::notFound(QStringLiteral("no sandbox %1").arg(id))
                                                             : Error::failed(c.error().message);
    return c.value();
}

void StandinLifecycle::get(const HttpRequest &request, HttpReply reply)
{
    auto c = sandbox(request.params.value(QStringLiteral("id")));
    if (!c)
        return reply.send(c.error().code == Error::Code::NotFound ? apiError(404, "NOT_FOUND", c.error().message)
                                                                  : apiError(500, "INTERNAL_ERROR", c.error().message));
    const QJsonObject labels
        = c.value().value(QStringLiteral("Config")).toObject().value(QStringLiteral("Labels")).toObject();
    const QJsonObject st = c.value().value(QStringLiteral("State")).toObject();
    const QString docker = st.value(QStringLiteral("Status")).toString();
    QString state = QStringLiteral("Failed");
    if (docker == QLatin1String("running"))
        state = QStringLiteral("Running");
    else if (docker == QLatin1String("paused"))
        state = QStringLiteral("Paused");
    else if (docker == QLatin1String("created") || docker == QLatin1String("restarting"))
        state = QStringLiteral("Pending");
    else if (docker == QLatin1String("exited") && st.value(QStringLiteral("ExitCode")).toInt() == 0)
        state = QStringLiteral("Terminated");
    reply.send(HttpResponse::json(200,
        QJsonObject {
            {QStringLiteral("id"), labels.value(kPrefix + QStringLiteral("sandbox")).toString()},
            {QStringLiteral("image"),
                QJsonObject {{QStringLiteral("uri"), labels.value(kPrefix + QStringLiteral("image")).toString()}}},
            {QStringLiteral("status"),
                QJsonObject {{QStringLiteral("state"), state},
                    {QStringLiteral("reason"), QString(QStringLiteral("container_") + docker)}}},
            {QStringLiteral("metadata"),
                QJsonDocument::fromJson(labels.value(kPrefix + QStringLiteral("metadata")).toString().toUtf8())
                    .object()},
            {QStringLiteral("entrypoint"),
                QJsonDocument::fromJson(labels.value(kPrefix + QStringLiteral("entrypoint")).toString().toUtf8())
                    .array()},
            {QStringLiteral("createdAt"), labels.value(kPrefix + QStringLiteral("created")).toString()},
        }));
}

void StandinLifecycle::remove(const HttpRequest &request, HttpReply reply)
{
    auto c = sandbox(request.params.value(QStringLiteral("id")));
    if (!c)
        return reply.send(apiError(404, "NOT_FOUND", c.error().message));
    if (auto s = m_docker.removeContainer(c.value().value(QStringLiteral("Id")).toString()); !s)
        return reply.send(apiError(500, "INTERNAL_ERROR", s.error().message));
    reply.send(HttpResponse {204, {}, {}});
}

void StandinLifecycle::transition(const HttpRequest &request, HttpReply reply, const char *action)
{
    auto c = sandbox(request.params.value(QStringLiteral("id")));
    if (!c)
        return reply.send(apiError(404, "NOT_FOUND", c.error().message));
    auto r = m_docker.call("POST",
        QStringLiteral("/containers/%1/%2")
            .arg(c.value().value(QStringLiteral("Id")).toString(), QLatin1String(action)));
    if (!r)
        return reply.send(apiError(409, "CONFLICT", r.error().message));
    reply.send(HttpResponse {202, {}, {}});
}

void StandinLifecycle::endpoint(const HttpRequest &request, HttpReply reply)
{
    auto c = sandbox(request.params.value(QStringLiteral("id")));
    if (!c)
        return reply.send(apiError(404, "NOT_FOUND", c.error().message));
    bool ok = false;
    const int port = request.params.value(QStringLiteral("port")).toInt(&ok);
    if (!ok || port < 1 || port > 65535)
        return reply.send(apiError(400, "INVALID_REQUEST", QStringLiteral("port must be 1..65535")));
    QString hostPort;
    const QJsonArray bindings = c.value()
                                    .value(QStringLiteral("NetworkSettings"))
                                    .toObject()
                                    .value(QStringLiteral("Ports"))
                                    .toObject()
                                    .value(QStringLiteral("%1/tcp").arg(kExecdPort))
                                    .toArray();
    for (const QJsonValue &b : bindings)
        hostPort = b.toObject().value(QStringLiteral("HostPort")).toString();
    if (hostPort.isEmpty())
        return reply.send(apiError(409, "CONFLICT", QStringLiteral("the sandbox is not running")));
    // execd itself, or a port inside the sandbox through execd's /proxy/{port}.
    const QString endpoint = port == kExecdPort ? QStringLiteral("127.0.0.1:%1").arg(hostPort)
                                                : QStringLiteral("127.0.0.1:%1/proxy/%2").arg(hostPort).arg(port);
    reply.send(HttpResponse::json(200, QJsonObject {{QStringLiteral("endpoint"), endpoint}}));
}

std::optional<QJsonObject> StandinLifecycle::snapshot(const QString &id) const
{
    if (const auto it = m_snapshots.constFind(id); it != m_snapshots.constEnd())
        return *it;
    static const QRegularExpression valid(QStringLiteral("^snap-[0-9a-f]{16}$"));
    if (!valid.match(id).hasMatch())
        return std::nullopt;
    auto image = m_docker.inspectImage(kSnapshotRepo + QLatin1Char(':') + id);
    if (!image)
        return std::nullopt;
    const QJsonObject labels = image.value().value(QStringLiteral("Config")).toObject().value(QStringLiteral("Labels")).toObject();
    return QJsonObject {{QStringLiteral("id"), id},
        {QStringLiteral("sandboxId"), labels.value(kPrefix + QStringLiteral("snapshot-of")).toString()},
        {QStringLiteral("status"), QJsonObject {{QStringLiteral("state"), QStringLiteral("Ready")}}},
        {QStringLiteral("createdAt"), image.value().value(QStringLiteral("Created")).toString()}};
}

void StandinLifecycle::createSnapshot(const HttpRequest &request, HttpReply reply)
{
    const QString sandboxId = request.params.value(QStringLiteral("id"));
    auto c = sandbox(sandboxId);
    if (!c)
        return reply.send(apiError(404, "NOT_FOUND", c.error().message));
    if (c.value().value(QStringLiteral("State")).toObject().value(QStringLiteral("Status")).toString() != QLatin1String("running"))
        return reply.send(apiError(409, "CONFLICT", QStringLiteral("the sandbox must be Running to be snapshotted")));
    QJsonObject body;
    QString why;
    if (!request.body.isEmpty() && !request.jsonBody(&body, &why))
        return reply.send(apiError(400, "INVALID_REQUEST", why));
    const QString id = QStringLiteral("snap-") + QString::fromLatin1(randomBytes(8).toHex());
    QJsonObject snap {{QStringLiteral("id"), id}, {QStringLiteral("sandboxId"), sandboxId},
        {QStringLiteral("status"), QJsonObject {{QStringLiteral("state"), QStringLiteral("Creating")},
                                       {QStringLiteral("reason"), QStringLiteral("snapshot_accepted")}}},
        {QStringLiteral("createdAt"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
    if (body.contains(QStringLiteral("name")))
        snap.insert(QStringLiteral("name"), body.value(QStringLiteral("name")).toString());
    m_snapshots.insert(id, snap);
    reply.send(HttpResponse::json(202, snap));
    // The capture after the answer, as the API has it: the client polls until Ready or Failed.
    const QString container = c.value().value(QStringLiteral("Id")).toString();
    QTimer::singleShot(0, this, [this, id, sandboxId, container] {
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("container"), container);
        query.addQueryItem(QStringLiteral("repo"), kSnapshotRepo);
        query.addQueryItem(QStringLiteral("tag"), id);
        query.addQueryItem(QStringLiteral("pause"), QStringLiteral("true"));
        query.addQueryItem(QStringLiteral("changes"), QStringLiteral("LABEL io.isolation.standin=snapshot"));
        query.addQueryItem(QStringLiteral("changes"),
            QStringLiteral("LABEL %1snapshot-of=%2").arg(kPrefix, sandboxId));
        auto committed = m_docker.call("POST", QStringLiteral("/commit"), query, QJsonObject {});
        QJsonObject snap = m_snapshots.value(id);
        QJsonObject status {{QStringLiteral("state"), committed ? QStringLiteral("Ready") : QStringLiteral("Failed")},
            {QStringLiteral("reason"), committed ? QStringLiteral("snapshot_ready") : QStringLiteral("snapshot_capture_failed")},
            {QStringLiteral("lastTransitionAt"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
        if (!committed)
            status.insert(QStringLiteral("message"), committed.error().message);
        snap.insert(QStringLiteral("status"), status);
        m_snapshots.insert(id, snap);
    });
}

void StandinLifecycle::getSnapshot(const HttpRequest &request, HttpReply reply)
{
    const QString id = request.params.value(QStringLiteral("id"));
    const auto snap = snapshot(id);
    if (!snap)
        return reply.send(apiError(404, "NOT_FOUND", QStringLiteral("no snapshot %1").arg(id)));
    reply.send(HttpResponse::json(200, *snap));
}

void StandinLifecycle::deleteSnapshot(const HttpRequest &request, HttpReply reply)
{
    const QString id = request.params.value(QStringLiteral("id"));
    const auto snap = snapshot(id);
    if (!snap)
        return reply.send(apiError(404, "NOT_FOUND", QStringLiteral("no snapshot %1").arg(id)));
    if (snap->value(QStringLiteral("status")).toObject().value(QStringLiteral("state")) == QLatin1String("Creating"))
        return reply.send(apiError(409, "CONFLICT", QStringLiteral("snapshot %1 is still being created").arg(id)));
    QUrlQuery force;
    force.addQueryItem(QStringLiteral("force"), QStringLiteral("true")); // a sandbox restored from it may still run
    auto removed = m_docker.call("DELETE", QStringLiteral("/images/%1:%2").arg(kSnapshotRepo, id), force);
    if (!removed && removed.error().code != DockerError::Code::NotFound)
        return reply.send(apiError(500, "INTERNAL_ERROR", removed.error().message));
    m_snapshots.remove(id);
    reply.send(HttpResponse {204, {}, {}});
}

} // namespace isolation::standin
