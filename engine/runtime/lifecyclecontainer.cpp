#include "lifecyclecontainer.h"

#include "curlrequest.h"
#include "dockerproxy.h"
#include "imagedigests.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QLoggingCategory>
#include <QThread>

#include <unistd.h>

Q_DECLARE_LOGGING_CATEGORY(lcRuntime)

namespace isolation {

namespace {

const QString kRole = QStringLiteral("lifecycle");
// 2: Docker through the engine's proxy (DOCKER_HOST), no more its socket.
const QByteArray kSpecVersion = QByteArrayLiteral("spec 2");

QString shortHash(const QByteArray &data)
{
    return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex().left(12));
}

} // namespace

LifecycleContainer::LifecycleContainer(DockerClient docker, Spec spec)
    : m_docker(std::move(docker))
    , m_spec(std::move(spec))
{
    m_docker.setCancel(m_spec.cancel);
    // What status shows as the digest: the one recorded when the image was first obtained.
    ImageDigests digests(m_spec.digestsFile);
    if (digests.load())
        m_digest = digests.recorded(m_spec.lifecycleImage);
}

QString LifecycleContainer::label(const char *key)
{
    return QStringLiteral("io.isolation.") + QLatin1String(key);
}

LifecycleContainer::Outcome LifecycleContainer::fail(RuntimeState state, const QString &reason) const
{
    Outcome o;
    o.state = state;
    o.reason = reason;
    o.image = m_spec.lifecycleImage;
    o.digest = m_digest;
    return o;
}

LifecycleContainer::Outcome LifecycleContainer::fromDocker(const DockerError &e) const
{
    const bool missing = e.code == DockerError::Code::NoDaemon || e.code == DockerError::Code::PermissionDenied;
    return fail(missing ? RuntimeState::DockerMissing : RuntimeState::Failed, e.message);
}

bool LifecycleContainer::probeHealth(quint16 port, int timeoutMs)
{
    if (port == 0)
        return false;
    CurlRequest r;
    r.url = QStringLiteral("http://127.0.0.1:%1/health").arg(port).toLatin1();
    r.timeoutMs = timeoutMs;
    auto answer = r.perform();
    return answer && answer.value().status == 200;
}

Result<QString, LifecycleContainer::Outcome> LifecycleContainer::verifiedImage(
    const QString &image, const QString &pinnedDigest)
{
    auto inspected = m_docker.inspectImage(image);
    if (!inspected && inspected.error().code == DockerError::Code::NotFound) {
        qCInfo(lcRuntime) << "image" << image << "is not here; pulling it";
        // The figures as the runtime's reason (GET /v1/runtime, the tray): at most 4 a second.
        std::function<void(const PullProgress &)> progress;
        if (m_spec.progress)
            progress = PullProgress::throttled([&](const PullProgress &p) {
                m_spec.progress(RuntimeState::Starting, QStringLiteral("Pulling %1: %2").arg(image, p.describe()));
            });
        if (auto pulled = m_docker.pullImage(image, progress); !pulled)
            return fail(RuntimeState::Failed,
                QStringLiteral("image %1 is not on this machine and cannot be pulled (%2)")
                    .arg(image, pulled.error().message));
        inspected = m_docker.inspectImage(image);
    }
    if (!inspected)
        return fromDocker(inspected.error());
    const QString id = inspected.value().value(QStringLiteral("Id")).toString();
    QStringList repoDigests;
    for (const QJsonValue v : inspected.value().value(QStringLiteral("RepoDigests")).toArray())
        repoDigests << v.toString();
    ImageDigests digests(m_spec.digestsFile);
    if (auto s = digests.load(); !s)
        return fail(RuntimeState::Failed, s.error().message);
    auto verified = digests.verify(image, id, repoDigests, pinnedDigest);
    if (!verified)
        return fail(RuntimeState::Failed, verified.error().message);
    return id;
}

QJsonObject LifecycleContainer::containerSpec(const QString &imageId, const QString &configHash, quint16 port) const
{
    const QString portKey = QStringLiteral("%1/tcp").arg(LifecycleConfig::ContainerPort);
    QJsonObject host {
        {QStringLiteral("Binds"),
            // Docker only through the engine's proxy (dockerproxy.h), never its socket: the
            // directory, not the socket file, so a restarted engine's new socket is seen too.
            QJsonArray {QStringLiteral("%1:/etc/opensandbox:ro").arg(m_spec.configDir),
                QStringLiteral("%1:%2").arg(m_spec.proxyDirectory, QLatin1String(DockerProxy::kContainerDirectory))}},
        {QStringLiteral("PortBindings"),
            QJsonObject {{portKey,
                QJsonArray {QJsonObject {{QStringLiteral("HostIp"), QStringLiteral("127.0.0.1")},
                    {QStringLiteral("HostPort"), port ? QString::number(port) : QString()}}}}}},
        {QStringLiteral("CapDrop"), QJsonArray {QStringLiteral("ALL")}},
        {QStringLiteral("SecurityOpt"), QJsonArray {QStringLiteral("no-new-privileges")}},
        {QStringLiteral("PidsLimit"), 256},
        {QStringLiteral("RestartPolicy"), QJsonObject {{QStringLiteral("Name"), QStringLiteral("no")}}},
    };
    QJsonObject labels {
        {label("role"), kRole},
        {label("engine"), m_spec.engineId},
        {label("pin"), m_spec.pin.opensandbox},
        {label("image"), m_spec.lifecycleImage},
        {label("image-id"), imageId},
        {label("config"), configHash},
    };
    return QJsonObject {
        {QStringLiteral("Image"), imageId},
        {QStringLiteral("User"), QStringLiteral("%1:%2").arg(::getuid()).arg(::getgid())},
        {QStringLiteral("Env"),
            QJsonArray {QStringLiteral("SANDBOX_CONFIG_PATH=%1").arg(QLatin1String(LifecycleConfig::ContainerPath)),
                QStringLiteral("DOCKER_HOST=%1").arg(DockerProxy::containerDockerHost())}},
        {QStringLiteral("ExposedPorts"), QJsonObject {{portKey, QJsonObject {}}}},
        {QStringLiteral("Labels"), labels},
        {QStringLiteral("HostConfig"), host},
    };
}

LifecycleContainer::Outcome LifecycleContainer::describe(
    const QString &id, RuntimeState state, const QString &reason) const
{
    Outcome o = fail(state, reason);
    auto c = m_docker.inspectContainer(id);
    if (!c)
        return fromDocker(c.error());
    const QJsonObject info = c.value();
    const QJsonObject st = info.value(QStringLiteral("State")).toObject();
    o.containerId = info.value(QStringLiteral("Id")).toString();
    o.containerName = info.value(QStringLiteral("Name")).toString().mid(1);
    o.containerState = st.value(QStringLiteral("Status")).toString();
    // Docker writes nanoseconds ("2026-01-02T03:04:05.123456789Z"); seconds are enough here.
    o.startedAt = QDateTime::fromString(
        st.value(QStringLiteral("StartedAt")).toString().left(19) + QLatin1Char('Z'), Qt::ISODate);
    const QJsonArray bindings = info.value(QStringLiteral("NetworkSettings"))
                                    .toObject()
                                    .value(QStringLiteral("Ports"))
                                    .toObject()
                                    .value(QStringLiteral("%1/tcp").arg(LifecycleConfig::ContainerPort))
                                    .toArray();
    for (const QJsonValue b : bindings) {
        if (b.toObject().value(QStringLiteral("HostIp")).toString() == QLatin1String("127.0.0.1"))
            o.port = quint16(b.toObject().value(QStringLiteral("HostPort")).toString().toUInt());
    }
    return o;
}

LifecycleContainer::Outcome LifecycleContainer::waitHealthy(const QString &id, RuntimeState whileWaiting)
{
    QElapsedTimer timer;
    timer.start();
    Outcome o;
    while (true) {
        o = describe(id, whileWaiting, QString());
        if (o.state == RuntimeState::DockerMissing)
            return o;
        if (o.containerState != QLatin1String("running") && o.containerState != QLatin1String("created")) {
            o.state = RuntimeState::Failed;
            o.reason = QStringLiteral("the lifecycle container %1 stopped while starting (%2); see `docker logs %1`")
                           .arg(o.containerName, o.containerState);
            return o;
        }
        if (probeHealth(o.port, 2000)) {
            o.state = RuntimeState::Healthy;
            o.reason = QStringLiteral("the runtime answers on 127.0.0.1:%1").arg(o.port);
            return o;
        }
        if (m_spec.cancel && *m_spec.cancel) {
            o.state = RuntimeState::Failed;
            o.reason = QStringLiteral("cancelled: the engine is stopping");
            return o;
        }
        if (timer.elapsed() > m_spec.startTimeoutMs) {
            o.state = RuntimeState::Unhealthy;
            o.reason = QStringLiteral("the lifecycle container %1 runs but /health did not answer within %2 s")
                           .arg(o.containerName)
                           .arg(m_spec.startTimeoutMs / 1000);
            return o;
        }
        QThread::msleep(200);
    }
}

LifecycleContainer::Outcome LifecycleContainer::prepare()
{
    if (auto v = m_docker.negotiate(); !v)
        return fromDocker(v.error());
    auto lifecycleId = verifiedImage(m_spec.lifecycleImage, m_spec.pin.digests.value(m_spec.lifecycleImage));
    if (!lifecycleId)
        return lifecycleId.error();
    auto execdId = verifiedImage(m_spec.config.execdImage, m_spec.pin.digests.value(m_spec.config.execdImage));
    if (!execdId)
        return execdId.error();
    ImageDigests digests(m_spec.digestsFile);
    if (digests.load())
        m_digest = digests.recorded(m_spec.lifecycleImage);
    return fail(RuntimeState::Starting, QStringLiteral("Docker and the runtime images are ready"));
}

LifecycleContainer::Outcome LifecycleContainer::bringUp()
{
    if (auto v = m_docker.negotiate(); !v)
        return fromDocker(v.error());
    if (m_spec.config.apiKey.isEmpty())
        return fail(RuntimeState::Failed, QStringLiteral("the runtime has no API key"));
    if (m_spec.proxyDirectory.isEmpty())
        return fail(RuntimeState::Failed, QStringLiteral("the engine's Docker proxy is not serving"));
    auto lifecycleId = verifiedImage(m_spec.lifecycleImage, m_spec.pin.digests.value(m_spec.lifecycleImage));
    if (!lifecycleId)
        return lifecycleId.error();
    auto execdId = verifiedImage(m_spec.config.execdImage, m_spec.pin.digests.value(m_spec.config.execdImage));
    if (!execdId)
        return execdId.error();
    ImageDigests digests(m_spec.digestsFile);
    if (digests.load())
        m_digest = digests.recorded(m_spec.lifecycleImage);

    if (auto refused = ensureNetwork())
        return *refused;
    if (!QDir().mkpath(m_spec.configDir))
        return fail(RuntimeState::Failed, QStringLiteral("cannot create %1").arg(m_spec.configDir));
    QFile::setPermissions(m_spec.configDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    const QString configFile = m_spec.configDir + QStringLiteral("/config.toml");
    if (auto s = m_spec.config.write(configFile); !s)
        return fail(RuntimeState::Failed, s.error().message);
    // The container's own spec changes with kSpecVersion: a container of an older spec is replaced.
    const QString configHash = shortHash(m_spec.config.toToml() + kSpecVersion);

    auto existing = m_docker.listContainers(
        {label("role") + QLatin1Char('=') + kRole, label("engine") + QLatin1Char('=') + m_spec.engineId});
    if (!existing)
        return fromDocker(existing.error());
    QString adopt;
    QStringList old;
    for (const QJsonValue v : existing.value()) {
        const QJsonObject c = v.toObject();
        const QJsonObject labels = c.value(QStringLiteral("Labels")).toObject();
        const QString id = c.value(QStringLiteral("Id")).toString();
        if (adopt.isEmpty() && labels.value(label("image-id")).toString() == lifecycleId.value()
            && labels.value(label("config")).toString() == configHash)
            adopt = id;
        else
            old << id;
    }

    if (!adopt.isEmpty()) {
        for (const QString &id : old)
            (void)m_docker.removeContainer(id);
        auto info = describe(adopt, RuntimeState::Starting, QString());
        if (info.containerState != QLatin1String("running")) {
            if (auto s = m_docker.startContainer(adopt); !s)
                return fromDocker(s.error());
        }
        return waitHealthy(adopt, RuntimeState::Starting);
    }

    return createAndStart(lifecycleId.value(), configHash, old);
}


LifecycleContainer::Outcome LifecycleContainer::createAndStart(
    const QString &imageId, const QString &configHash, const QStringList &old)
{
    const bool upgrading = !old.isEmpty();
    if (upgrading) {
        qCInfo(lcRuntime) << "upgrading the runtime to" << m_spec.lifecycleImage << "(pin" << m_spec.pin.opensandbox
                          << ")";
        if (m_spec.progress)
            m_spec.progress(RuntimeState::Upgrading,
                QStringLiteral("Upgrading the runtime to %1; the current one runs until the new one is healthy")
                    .arg(m_spec.lifecycleImage));
    }
    const QString name
        = QStringLiteral("isolation-runtime-%1-%2")
              .arg(m_spec.engineId.left(12), shortHash(imageId.toUtf8() + configHash.toUtf8()));
    // While upgrading the old container still holds the configured port: the new one gets its own.
    auto created
        = m_docker.createContainer(name, containerSpec(imageId, configHash, upgrading ? 0 : m_spec.port));
    if (!created && created.error().status == 409) {
        (void)m_docker.removeContainer(name); // a half-made container of an earlier attempt
        created = m_docker.createContainer(
            name, containerSpec(imageId, configHash, upgrading ? 0 : m_spec.port));
    }
    if (!created)
        return fromDocker(created.error());
    Outcome o;
    bool started = true;
    if (auto s = m_docker.startContainer(created.value()); !s) {
        o = fromDocker(s.error());
        started = false;
    } else {
        o = waitHealthy(created.value(), upgrading ? RuntimeState::Upgrading : RuntimeState::Starting);
    }
    if (o.state != RuntimeState::Healthy) {
        // A container that never started is of no use; one that stopped is kept for `docker logs`,
        // except in an upgrade, where the old runtime stays and the new one goes.
        if (upgrading || !started)
            (void)m_docker.removeContainer(created.value());
        if (upgrading) {
            const QString why = o.reason;
            o = fail(RuntimeState::Failed,
                QStringLiteral("the upgrade to %1 failed (%2); the previous runtime keeps running")
                    .arg(m_spec.lifecycleImage, why));
        }
        return o;
    }
    for (const QString &id : old)
        (void)m_docker.removeContainer(id);
    return o;
}

LifecycleContainer::Outcome LifecycleContainer::check(const QString &containerId)
{
    Outcome o = describe(containerId, RuntimeState::Healthy, QString());
    if (o.state == RuntimeState::DockerMissing)
        return o;
    if (o.containerId.isEmpty() || o.state == RuntimeState::Failed) {
        qCWarning(lcRuntime) << "the lifecycle container is gone; creating it again";
        if (m_spec.progress)
            m_spec.progress(
                RuntimeState::Restarting, QStringLiteral("The runtime's container is gone; creating it again"));
        Outcome again = bringUp();
        again.restarts = 1;
        return again;
    }
    if (o.containerState != QLatin1String("running")) {
        qCWarning(lcRuntime) << "the lifecycle container" << o.containerName << "is" << o.containerState
                             << "; restarting it";
        if (m_spec.progress)
            m_spec.progress(RuntimeState::Restarting,
                QStringLiteral("The runtime's container %1 stopped (%2); restarting it")
                    .arg(o.containerName, o.containerState));
        if (auto s = m_docker.startContainer(containerId); !s)
            return fromDocker(s.error());
        Outcome again = waitHealthy(containerId, RuntimeState::Restarting);
        again.restarts = 1;
        return again;
    }
    // One slow answer is not a failure: on a loaded machine (a build beside it, images being made)
    // the server can miss a 3 s probe, and Unhealthy refuses every launch until the next check. A
    // second, longer probe decides (a CI run on a fresh clone saw a launch refused so).
    if (!probeHealth(o.port, 3000) && !probeHealth(o.port, 10000)) {
        o.state = RuntimeState::Unhealthy;
        o.reason
            = QStringLiteral("the lifecycle container runs but does not answer /health on 127.0.0.1:%1").arg(o.port);
        return o;
    }
    o.reason = QStringLiteral("the runtime answers on 127.0.0.1:%1").arg(o.port);
    return o;
}

LifecycleContainer::Outcome LifecycleContainer::restart(const QString &containerId)
{
    if (containerId.isEmpty())
        return bringUp();
    if (auto s = m_docker.restartContainer(containerId, 5); !s) {
        if (s.error().code == DockerError::Code::NotFound)
            return bringUp();
        return fromDocker(s.error());
    }
    return waitHealthy(containerId, RuntimeState::Restarting);
}

std::optional<LifecycleContainer::Outcome> LifecycleContainer::ensureNetwork()
{
    const QString name = m_spec.config.network;
    if (name.isEmpty())
        return std::nullopt;
    const QString icc = QStringLiteral("com.docker.network.bridge.enable_icc");
    const QString hostIp = QStringLiteral("com.docker.network.bridge.host_binding_ipv4");
    auto found = m_docker.call("GET", QStringLiteral("/networks/") + name);
    if (found) {
        const QJsonObject network = found.value().toObject();
        const QJsonObject options = network.value(QStringLiteral("Options")).toObject();
        if (network.value(QStringLiteral("Driver")).toString() == QLatin1String("bridge")
            && options.value(icc).toString() == QLatin1String("false")
            && options.value(hostIp).toString() == QLatin1String("127.0.0.1"))
            return std::nullopt;
        if (!network.value(QStringLiteral("Containers")).toObject().isEmpty()) {
            return fail(RuntimeState::Failed,
                QStringLiteral("the Docker network %1 lets sandboxes reach each other and containers use it: stop "
                               "them and remove it (docker network rm %1); the engine makes it again, closed")
                    .arg(name));
        }
        if (auto removed = m_docker.call("DELETE", QStringLiteral("/networks/") + name); !removed)
            return fromDocker(removed.error());
    } else if (found.error().code != DockerError::Code::NotFound) {
        return fromDocker(found.error());
    }
    qCInfo(lcRuntime) << "making the sandboxes' network" << name << "(inter-container traffic off)";
    const QJsonObject spec {{QStringLiteral("Name"), name}, {QStringLiteral("Driver"), QStringLiteral("bridge")},
        {QStringLiteral("CheckDuplicate"), true},
        {QStringLiteral("Options"), QJsonObject {{icc, QStringLiteral("false")}, {hostIp, QStringLiteral("127.0.0.1")}}},
        {QStringLiteral("Labels"),
            QJsonObject {{label("role"), QStringLiteral("sandboxes")}, {label("user"), QString::number(::getuid())}}}};
    auto created = m_docker.call("POST", QStringLiteral("/networks/create"), {}, spec);
    if (!created && created.error().status != 409) // 409: another start of this engine made it first
        return fromDocker(created.error());
    return std::nullopt;
}

Result<void, DockerError> LifecycleContainer::removeAll()
{
    auto existing = m_docker.listContainers(
        {label("role") + QLatin1Char('=') + kRole, label("engine") + QLatin1Char('=') + m_spec.engineId});
    if (!existing)
        return existing.error();
    for (const QJsonValue v : existing.value()) {
        if (auto s = m_docker.removeContainer(v.toObject().value(QStringLiteral("Id")).toString()); !s)
            return s;
    }
    return {};
}

} // namespace isolation
