#include "runtimemanager.h"

#include "dockerproxy.h"

#include "core/logging.h"
#include "crypto/random.h"
#include "credentials/credentialstore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QPointer>

#include <algorithm>

Q_LOGGING_CATEGORY(lcRuntime, "isolation.runtime")

#include <unistd.h>

namespace isolation {

QString runtimeStateName(RuntimeState state)
{
    switch (state) {
    case RuntimeState::Absent:
        return QStringLiteral("absent");
    case RuntimeState::DockerMissing:
        return QStringLiteral("docker_missing");
    case RuntimeState::Starting:
        return QStringLiteral("starting");
    case RuntimeState::Healthy:
        return QStringLiteral("healthy");
    case RuntimeState::Unhealthy:
        return QStringLiteral("unhealthy");
    case RuntimeState::Restarting:
        return QStringLiteral("restarting");
    case RuntimeState::Upgrading:
        return QStringLiteral("upgrading");
    case RuntimeState::Failed:
        return QStringLiteral("failed");
    }
    return QStringLiteral("failed");
}

namespace {

// The session directory exists (0700) before the mount policy canonicalises it.
QString ensuredDirectory(const QString &path)
{
    if (QDir().mkpath(path))
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

} // namespace

RuntimeManager::RuntimeManager(RuntimeConfig config, std::unique_ptr<CredentialStore> apiKeyStore, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_keyStore(std::move(apiKeyStore))
    , m_mounts(ensuredDirectory(m_config.sessionDir))
    , m_engineId(QString::fromLatin1(
          QCryptographicHash::hash(QDir(m_config.dataDir).absolutePath().toUtf8(), QCryptographicHash::Sha256)
              .toHex()
              .left(16)))
    , m_reason(tr("The runtime has not been started"))
{
    m_pool.setMaxThreadCount(1); // one Docker operation at a time, in order
    m_monitor.setInterval(m_config.healthIntervalMs);
    connect(&m_monitor, &QTimer::timeout, this, &RuntimeManager::monitor);
}

RuntimeManager::~RuntimeManager()
{
    stop();
    if (!m_apiKey.isEmpty())
        logging::removeRedaction(m_apiKey);
    m_apiKey.fill('\0');
}

QString RuntimeManager::lifecycleImage() const
{
    return m_config.lifecycleImage.isEmpty() ? m_config.pin.lifecycleImage : m_config.lifecycleImage;
}

QString RuntimeManager::sandboxNetwork()
{
    return QStringLiteral("isolation-sandboxes-%1").arg(::getuid());
}

QString RuntimeManager::execdImage() const
{
    return m_config.execdImage.isEmpty() ? m_config.pin.execdImage : m_config.execdImage;
}

void RuntimeManager::start()
{
    if (m_running)
        return;
    m_running = true;
    m_cancel = std::make_shared<std::atomic_bool>(false);
    setState(RuntimeState::Starting, tr("Starting the runtime"));
    begin();
}

bool RuntimeManager::ensureProxy()
{
    if (m_proxy && m_proxy->isListening())
        return true;
    auto docker = DockerClient::fromEnvironment(m_config.environment);
    if (!docker)
        return true; // prepare() says what is wrong with Docker
    m_proxy = std::make_unique<DockerProxy>(docker.value().socketPath());
    if (auto s = m_proxy->listen(m_config.dataDir + QStringLiteral("/runtime-docker")); !s) {
        setState(RuntimeState::Failed, tr("Cannot serve Docker to the runtime: %1").arg(s.error().message));
        return false;
    }
    return true;
}

void RuntimeManager::begin()
{
    if (!ensureProxy())
        return;
    // Docker and the images first: the API key is minted (and the keychain touched) only once
    // there is a runtime to give it to.
    QPointer<RuntimeManager> self(this);
    run([](LifecycleContainer &c) { return c.prepare(); },
        [self](const LifecycleContainer::Outcome &o) {
            if (!self || !self->m_running || o.state != RuntimeState::Starting)
                return;
            if (self->m_apiKey.isEmpty())
                self->loadApiKey();
            else
                self->run([](LifecycleContainer &c) { return c.bringUp(); });
        });
}

void RuntimeManager::stop()
{
    m_running = false;
    m_monitor.stop();
    *m_cancel = true; // a Docker call or a wait for /health in flight gives up now
    // Wait for Docker calls in flight; the pool (a member) joins its thread when we are destroyed,
    // so no libcurl or OpenSSL thread state outlives the manager.
    m_pool.waitForDone();
}

void RuntimeManager::loadApiKey()
{
    QPointer<RuntimeManager> self(this);
    m_keyLoading = true;
    m_keyStore->load([self](Result<std::optional<SecureBytes>, CredentialError> loaded) {
        if (!self)
            return;
        self->m_keyLoading = false;
        if (!self->m_running)
            return;
        if (!loaded) {
            self->setState(RuntimeState::Failed,
                tr("Cannot read the runtime's API key from %1: %2")
                    .arg(self->m_keyStore->describe(), loaded.error().message));
            return;
        }
        auto begin = [self] {
            logging::addRedaction(self->m_apiKey);
            self->run([](LifecycleContainer &c) { return c.bringUp(); });
        };
        if (loaded.value()) {
            self->m_apiKey = loaded.value()->view().toByteArray();
            begin();
            return;
        }
        // First install: mint the key the lifecycle server will demand from every caller.
        self->m_apiKey = randomBytes(32).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        qCInfo(lcRuntime) << "minted the runtime's API key; stored in" << self->m_keyStore->describe();
        self->m_keyLoading = true;
        self->m_keyStore->save(SecureBytes(self->m_apiKey), [self, begin](Result<void, CredentialError> saved) {
            if (!self)
                return;
            self->m_keyLoading = false;
            if (!self->m_running)
                return;
            if (!saved) {
                self->setState(RuntimeState::Failed,
                    tr("Cannot store the runtime's API key in %1: %2")
                        .arg(self->m_keyStore->describe(), saved.error().message));
                return;
            }
            begin();
        });
    });
}

LifecycleContainer::Spec RuntimeManager::spec() const
{
    LifecycleContainer::Spec s;
    s.engineId = m_engineId;
    s.pin = m_config.pin;
    s.lifecycleImage = lifecycleImage();
    s.digestsFile = m_config.dataDir + QStringLiteral("/runtime.json");
    s.configDir = m_config.dataDir + QStringLiteral("/runtime");
    s.proxyDirectory = m_proxy && m_proxy->isListening() ? m_proxy->directory() : QString();
    s.config.apiKey = m_apiKey;
    s.config.execdImage = execdImage();
    s.config.allowedHostPaths = {m_mounts.sessionDirectory()};
    s.config.network = sandboxNetwork();
    s.port = m_config.port;
    s.startTimeoutMs = m_config.startTimeoutMs;
    s.cancel = m_cancel;
    QPointer<RuntimeManager> self(const_cast<RuntimeManager *>(this));
    s.progress = [self](RuntimeState state, const QString &reason) {
        // On the worker thread: the manager outlives its jobs (stop() joins them).
        QMetaObject::invokeMethod(
            self.data(),
            [self, state, reason] {
                if (self && self->m_pending > 0)
                    self->setState(state, reason);
            },
            Qt::QueuedConnection);
    };
    return s;
}

void RuntimeManager::run(Job job, std::function<void(const LifecycleContainer::Outcome &)> done)
{
    ++m_pending;
    auto docker = DockerClient::fromEnvironment(m_config.environment);
    LifecycleContainer::Spec s = spec();
    QPointer<RuntimeManager> self(this);
    m_pool.start([self, docker, s = std::move(s), job = std::move(job), done = std::move(done)]() mutable {
        LifecycleContainer::Outcome outcome;
        if (!docker) {
            outcome.state = RuntimeState::DockerMissing;
            outcome.reason = docker.error().message;
        } else {
            LifecycleContainer container(docker.value(), std::move(s));
            outcome = job(container);
        }
        // `self` is only read on its own thread: the queued call is dropped if it is gone.
        QMetaObject::invokeMethod(
            self.data(),
            [self, outcome, done = std::move(done)] {
                if (!self)
                    return;
                --self->m_pending;
                self->apply(outcome);
                if (done)
                    done(outcome);
            },
            Qt::QueuedConnection);
    });
}

void RuntimeManager::apply(const LifecycleContainer::Outcome &outcome)
{
    if (outcome.restarts)
        m_restarts += outcome.restarts;
    if (!outcome.containerId.isEmpty() || outcome.state == RuntimeState::Healthy)
        m_last = outcome;
    else {
        m_last.state = outcome.state;
        m_last.reason = outcome.reason;
        if (!outcome.digest.isEmpty())
            m_last.digest = outcome.digest;
    }
    QString reason;
    switch (outcome.state) {
    case RuntimeState::Healthy:
        reason = tr("Runtime healthy: %1").arg(outcome.reason);
        break;
    case RuntimeState::DockerMissing:
        reason = tr("Docker is not available: %1").arg(outcome.reason);
        break;
    default:
        reason = outcome.reason;
        break;
    }
    if (outcome.state != RuntimeState::Healthy)
        qCWarning(lcRuntime) << runtimeStateName(outcome.state) << "-" << outcome.reason;
    if (outcome.state == RuntimeState::Healthy && m_state != RuntimeState::Healthy)
        m_healthyAt = QDateTime::currentDateTimeUtc();
    setState(outcome.state, reason);
    if (m_running && !m_monitor.isActive())
        m_monitor.start();
}

void RuntimeManager::monitor()
{
    if (!m_running || m_pending > 0 || m_keyLoading)
        return;
    // A refused or missing image needs a person: look again now and then, not at every tick.
    if (m_state == RuntimeState::Failed && ++m_idleTicks % 6 != 0)
        return;
    if (m_state == RuntimeState::DockerMissing || m_state == RuntimeState::Failed || m_last.containerId.isEmpty()) {
        // Docker may have come up, or the image may have been provided, since: try again.
        begin();
        return;
    }
    const QString id = m_last.containerId;
    const bool wasHealthy = m_state == RuntimeState::Healthy;
    run([id, wasHealthy](LifecycleContainer &c) {
        LifecycleContainer::Outcome o = c.check(id);
        if (o.state == RuntimeState::Unhealthy && !wasHealthy)
            return c.restart(id); // unhealthy twice in a row
        return o;
    });
}

void RuntimeManager::restart(std::function<void(Status)> done)
{
    if (!m_running) {
        if (done)
            done(Error::unavailable(tr("The runtime is not started")));
        return;
    }
    if (m_apiKey.isEmpty()) {
        // Not up yet (Docker missing, an image refused, still starting): say where it stands.
        if (done)
            done(Error::unavailable(m_reason));
        return;
    }
    setState(RuntimeState::Restarting, tr("Restarting the runtime"));
    const QString id = m_last.containerId;
    run([id](LifecycleContainer &c) { return c.restart(id); },
        [done = std::move(done)](const LifecycleContainer::Outcome &o) {
            if (!done)
                return;
            if (o.state == RuntimeState::Healthy)
                done({});
            else
                done(Error::failed(o.reason));
        });
}

void RuntimeManager::remove(std::function<void(Status)> done)
{
    m_monitor.stop();
    ++m_pending;
    auto docker = DockerClient::fromEnvironment(m_config.environment);
    LifecycleContainer::Spec s = spec();
    s.cancel.reset(); // removal is asked for explicitly: it runs to the end, even after stop()
    QPointer<RuntimeManager> self(this);
    m_pool.start([self, docker, s = std::move(s), done = std::move(done)]() mutable {
        Status status;
        if (!docker)
            status = Error::unavailable(docker.error().message);
        else if (auto r = LifecycleContainer(docker.value(), std::move(s)).removeAll(); !r)
            status = Error::failed(r.error().message);
        QMetaObject::invokeMethod(
            self.data(),
            [self, status, done = std::move(done)] {
                if (!self)
                    return;
                --self->m_pending;
                self->m_last = {};
                self->setState(RuntimeState::Absent, tr("The runtime was removed"));
                if (done)
                    done(status);
            },
            Qt::QueuedConnection);
    });
}

QUrl RuntimeManager::lifecycleUrl() const
{
    if (m_last.port == 0)
        return {};
    return QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(m_last.port));
}

QJsonObject RuntimeManager::status() const
{
    QJsonObject o {
        {QStringLiteral("state"), runtimeStateName(m_state)},
        {QStringLiteral("reason"), m_reason},
        {QStringLiteral("pin"), m_config.pin.opensandbox},
        {QStringLiteral("image"), lifecycleImage()},
        {QStringLiteral("execdImage"), execdImage()},
        {QStringLiteral("digest"), m_last.digest},
        {QStringLiteral("container"), m_last.containerName},
        {QStringLiteral("containerId"), m_last.containerId.left(12)},
        {QStringLiteral("containerState"), m_last.containerState},
        {QStringLiteral("health"), m_state == RuntimeState::Healthy ? QStringLiteral("ok") : QStringLiteral("failing")},
        {QStringLiteral("url"), lifecycleUrl().toString()},
        {QStringLiteral("sessionDirectory"), m_mounts.sessionDirectory()},
        {QStringLiteral("restarts"), m_restarts},
        {QStringLiteral("standin"), lifecycleImage().startsWith(QLatin1String("isolation-standin/"))},
    };
    if (m_proxy && m_proxy->isListening()) {
        o.insert(QStringLiteral("dockerProxy"),
            QJsonObject {{QStringLiteral("socket"), m_proxy->socketPath()},
                {QStringLiteral("rewrittenCreates"), m_proxy->rewrittenCreates()}});
    }
    if (m_last.startedAt.isValid()) {
        o.insert(QStringLiteral("startedAt"), m_last.startedAt.toString(Qt::ISODate));
        o.insert(QStringLiteral("uptimeSeconds"), m_last.startedAt.secsTo(QDateTime::currentDateTimeUtc()));
    }
    return o;
}

void RuntimeManager::setState(RuntimeState state, const QString &reason)
{
    if (state == m_state && reason == m_reason)
        return;
    m_state = state;
    m_reason = reason;
    qCInfo(lcRuntime) << "runtime:" << runtimeStateName(state) << "-" << reason;
    pace();
    Q_EMIT stateChanged();
}

void RuntimeManager::setWatched(bool watched)
{
    m_watched = watched;
    pace();
}

void RuntimeManager::pace()
{
    // A healthy runtime nobody looks at is checked no more often than the engine's heartbeat.
    const bool idle = m_state == RuntimeState::Healthy && !m_watched && m_config.idleHealthIntervalMs > 0;
    const int ms
        = idle ? std::max(m_config.healthIntervalMs, m_config.idleHealthIntervalMs) : m_config.healthIntervalMs;
    if (m_monitor.interval() != ms)
        m_monitor.setInterval(ms); // restarts it when active
}

} // namespace isolation
