#include "sandboxlauncher.h"

#include "sandboxcontrol.h"

#include "core/logging.h"
#include "devcontainerconfig.h"
#include "runtime/dockerclient.h"
#include "runtime/execdtoken.h"
#include "runtime/lifecycleclient.h"
#include "secrets/secretdelivery.h"
#include "secrets/secretvault.h"

#include <QFileInfo>
#include <QJsonObject>
#include <QPointer>
#include <QTimer>

namespace isolation {

Result<LaunchRequest, SandboxError> LaunchRequest::fromWorkspace(
    const QString &sessionId, const QString &worktree, const QString &defaultImage)
{
    LaunchRequest request;
    request.sessionId = sessionId;
    request.worktree = worktree;
    request.image = defaultImage;
    auto config = DevcontainerConfig::load(worktree);
    if (!config)
        return config.error();
    if (config.value()) {
        const DevcontainerConfig &c = *config.value();
        if (!c.image.isEmpty())
            request.image = c.image;
        auto build = DevcontainerBuild::plan(c, worktree, defaultImage);
        if (!build)
            return build.error();
        request.build = std::move(build.value());
        if (request.build)
            request.image.clear(); // the build's tag, once built
        request.env = c.containerEnv;
        request.postCreateCommands = c.postCreateCommands;
        qCInfo(lcSandbox).noquote() << QStringLiteral(
            "session %1: %2 chooses image %3, %4 variables, %5 postCreate commands")
                                           .arg(sessionId, c.path,
                                               request.build ? QStringLiteral("(built)") : request.image)
                                           .arg(request.env.size())
                                           .arg(request.postCreateCommands.size());
    }
    if (request.image.isEmpty() && !request.build)
        return SandboxError::refused(QStringLiteral("no image: neither devcontainer.json nor the settings name one"));
    return request;
}

SandboxLauncher::SandboxLauncher(QNetworkAccessManager *network, LifecycleClient *lifecycle, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_lifecycle(lifecycle)
{ }

SandboxLauncher::~SandboxLauncher()
{
    if (m_buildCancel)
        *m_buildCancel = true;
    m_pool.waitForDone(); // the build's callbacks name this object
    if (!m_token.isEmpty())
        logging::removeRedaction(m_token);
}

SandboxError SandboxLauncher::fromLifecycle(const LifecycleError &e, const QString &what)
{
    const QString message = what + QStringLiteral(": ") + e.message;
    if (e.code == LifecycleError::Code::Refused)
        return SandboxError::refused(message);
    return e.retryable() ? SandboxError::unavailable(message) : SandboxError::failed(message);
}

void SandboxLauncher::later(Callback done, Result<void, SandboxError> result)
{
    QTimer::singleShot(0, this, [done = std::move(done), result = std::move(result)] { done(result); });
}

void SandboxLauncher::setState(SandboxState state)
{
    if (state == m_state)
        return;
    m_state = state;
    qCInfo(lcSandbox).noquote() << QStringLiteral("session %1: sandbox %2 %3")
                                       .arg(m_request.sessionId, m_id.isEmpty() ? QStringLiteral("-") : m_id,
                                           sandboxStateName(state));
    Q_EMIT stateChanged(state);
}

CommandRequest SandboxLauncher::command(const QString &shellCommand) const
{
    CommandRequest request {shellCommand, QString::fromLatin1(kWorkspace), {}, std::nullopt};
    if (m_secrets)
        request.envs = m_secrets->environment();
    return request;
}

void SandboxLauncher::launch(LaunchRequest request, const SecretVault *secrets, Callback done)
{
    if (m_state != SandboxState::Idle && m_state != SandboxState::Deleted && m_state != SandboxState::Failed)
        return later(std::move(done), SandboxError::refused(QStringLiteral("the sandbox is already launched")));
    if (!request.snapshotId.isEmpty())
        request.build.reset(); // the snapshot holds what the image was
    if (request.sessionId.isEmpty() || (!request.build && !DevcontainerConfig::isValidImage(request.image)))
        return later(std::move(done), SandboxError::refused(QStringLiteral("a launch needs a session and an image")));
    if (!QFileInfo(request.worktree).isDir())
        return later(std::move(done),
            SandboxError::refused(QStringLiteral("the worktree %1 does not exist").arg(request.worktree)));
    if (!request.secretsDirectory.isEmpty() && !SecretDelivery::isValidDirectory(request.secretsDirectory))
        return later(std::move(done),
            SandboxError::refused(QStringLiteral("%1 cannot hold secrets").arg(request.secretsDirectory)));
    for (auto it = request.env.begin(); it != request.env.end(); ++it) {
        if (secrets && secrets->contains(it.key()))
            return later(std::move(done),
                SandboxError::refused(
                    QStringLiteral("%1 is a secret: it cannot be in the container's environment").arg(it.key())));
    }

    QByteArray token = execdAccessToken(m_lifecycle->apiKey(), request.sessionId);
    if (token.isEmpty())
        return later(std::move(done),
            SandboxError::refused(QStringLiteral("the runtime has no API key to derive execd's access token from")));

    m_request = std::move(request);
    m_secrets = secrets;
    m_pending = std::move(done);
    m_execd.reset();
    m_id.clear();
    m_postCreateOutput.clear();
    setAccessToken(std::move(token));
    const quint64 generation = ++m_generation;
    if (m_request.build)
        buildImage(generation);
    else
        create(generation);
}

void SandboxLauncher::buildImage(quint64 generation)
{
    setState(SandboxState::Building);
    if (m_buildCancel)
        *m_buildCancel = true;
    m_buildCancel = std::make_shared<std::atomic_bool>(false);
    // Back on this object's thread (the destructor waits for the pool: `this` outlives the job).
    m_pool.start([this, generation, build = *m_request.build, cancel = m_buildCancel] {
        auto output = [this](const QString &line) {
            QMetaObject::invokeMethod(
                this,
                [this, line = logging::redact(line)] {
                    qCInfo(lcSandbox).noquote()
                        << QStringLiteral("session %1: build: %2").arg(m_request.sessionId, line);
                    Q_EMIT buildOutput(line);
                },
                Qt::QueuedConnection);
        };
        Result<QString, SandboxError> tag = SandboxError::unavailable(QString());
        auto docker = DockerClient::fromEnvironment();
        if (!docker) {
            tag = SandboxError::unavailable(docker.error().message);
        } else {
            DockerClient client(docker.value().socketPath(), 60 * 60 * 1000); // a build may take long
            client.setCancel(cancel);
            if (auto v = client.negotiate(); !v)
                tag = SandboxError::unavailable(QStringLiteral("Docker: %1").arg(v.error().message));
            else
                tag = build.run(client, output);
        }
        QMetaObject::invokeMethod(
            this,
            [this, generation, tag] {
                if (generation != m_generation)
                    return;
                if (!tag)
                    return fail(tag.error());
                m_request.image = tag.value();
                create(generation);
            },
            Qt::QueuedConnection);
    });
}

void SandboxLauncher::create(quint64 generation)
{
    SandboxSpec spec;
    spec.image = m_request.image;
    spec.snapshotId = m_request.snapshotId;
    if (!m_request.snapshotId.isEmpty())
        m_request.postCreateCommands.clear();
    spec.entrypoint = m_request.entrypoint;
    spec.env = m_request.env; // never the secrets: the create request ends up in Docker's config.v2.json
    // The one value of the container's environment that is a secret, and the only way the pinned
    // runtime lets execd be given a token (docs/runtime.md, "execd's access token"). Set last: a
    // containerEnv of the same name does not replace it.
    spec.env.insert(QStringLiteral("EXECD_ACCESS_TOKEN"), QString::fromLatin1(m_token));
    spec.metadata = {{QStringLiteral("session"), m_request.sessionId}};
    spec.timeoutSeconds = m_request.timeoutSeconds;
    spec.mounts = {{QStringLiteral("workspace"), m_request.worktree, QString::fromLatin1(kWorkspace), false}};
    if (!m_request.controlDirectory.isEmpty()) {
        spec.mounts.append({QStringLiteral("control"), m_request.controlDirectory,
            QString::fromLatin1(SandboxControl::kMountPath), false});
        spec.env.insert(QStringLiteral("ISOLATION_CONTROL"), QString::fromLatin1(SandboxControl::kMountPath));
    }
    setState(SandboxState::Creating);
    QPointer<SandboxLauncher> self(this);
    LifecycleClient *lifecycle = m_lifecycle; // answers on itself: alive when this runs
    m_lifecycle->createSandbox(spec, [self, generation, lifecycle](Result<QJsonObject, LifecycleError> r) {
        if (!self || generation != self->m_generation) {
            // remove() came first, or this launcher is gone: no one would ever know the sandbox,
            // so what was created goes at once (and a removal waiting for it is done then).
            Callback removed = self ? std::exchange(self->m_removedAfterCreate, {}) : Callback();
            const auto finished = [self, removed](Result<void, SandboxError> result) {
                if (!self || !removed)
                    return;
                if (self->m_state == SandboxState::Deleting)
                    self->setState(result ? SandboxState::Deleted : SandboxState::Failed);
                removed(result);
            };
            if (!r.ok()) {
                finished({});
                return;
            }
            lifecycle->deleteSandbox(
                r.value().value(QStringLiteral("id")).toString(), [finished](Result<QJsonObject, LifecycleError> d) {
                    if (d.ok() || (d.error().code == LifecycleError::Code::Rejected && d.error().status == 404))
                        finished({});
                    else
                        finished(fromLifecycle(d.error(), QStringLiteral("cannot delete the sandbox")));
                });
            return;
        }
        if (!r.ok())
            return self->fail(fromLifecycle(r.error(), QStringLiteral("cannot create the sandbox")));
        self->m_id = r.value().value(QStringLiteral("id")).toString();
        if (self->m_id.isEmpty())
            return self->fail(SandboxError::failed(QStringLiteral("the runtime created a sandbox without an id")));
        self->setState(SandboxState::Starting);
        self->m_since.start();
        self->pollRunning(generation);
    });
}

void SandboxLauncher::pollRunning(quint64 generation)
{
    QPointer<SandboxLauncher> self(this);
    m_lifecycle->getSandbox(m_id, [self, generation](Result<QJsonObject, LifecycleError> r) {
        if (!self || generation != self->m_generation)
            return;
        const QJsonObject status = r.ok() ? r.value().value(QStringLiteral("status")).toObject() : QJsonObject();
        const QString state = status.value(QStringLiteral("state")).toString();
        if (r.ok() && state == QLatin1String("Running"))
            return self->fetchEndpoint(generation);
        const bool waiting = r.ok() ? state == QLatin1String("Pending") : r.error().retryable();
        if (!waiting || self->m_since.elapsed() > self->m_timeouts.runningMs) {
            const QString why = !r.ok() ? r.error().message
                : waiting ? QStringLiteral("still %1 after %2 ms").arg(state).arg(self->m_timeouts.runningMs)
                          : QStringLiteral("%1 (%2)").arg(state, status.value(QStringLiteral("reason")).toString());
            return self->fail(SandboxError::failed(QStringLiteral("the sandbox did not start: %1").arg(why)));
        }
        QTimer::singleShot(self->m_timeouts.pollMs, self, [self, generation] {
            if (self && generation == self->m_generation)
                self->pollRunning(generation);
        });
    });
}

void SandboxLauncher::adopt(LaunchRequest request, const QString &sandboxId, const SecretVault *secrets, Callback done)
{
    if (m_state != SandboxState::Idle && m_state != SandboxState::Deleted && m_state != SandboxState::Failed)
        return later(std::move(done), SandboxError::refused(QStringLiteral("the sandbox is already launched")));
    if (sandboxId.isEmpty())
        return later(std::move(done), SandboxError::refused(QStringLiteral("no sandbox to adopt")));
    QByteArray token = execdAccessToken(m_lifecycle->apiKey(), request.sessionId);
    if (token.isEmpty())
        return later(std::move(done),
            SandboxError::refused(QStringLiteral("the runtime has no API key to derive execd's access token from")));
    m_request = std::move(request);
    m_secrets = secrets;
    m_pending = std::move(done);
    m_execd.reset();
    m_id = sandboxId;
    setAccessToken(std::move(token));
    const quint64 generation = ++m_generation;
    // Failing here deletes nothing: the sandbox may hold a member's running work.
    const auto refuse = [this](const QString &why) {
        qCWarning(lcSandbox).noquote() << QStringLiteral("session %1: sandbox %2 not adopted: %3")
                                              .arg(m_request.sessionId, m_id, why);
        ++m_generation;
        setState(SandboxState::Failed);
        if (Callback pending = std::exchange(m_pending, {}))
            pending(SandboxError::failed(QStringLiteral("sandbox %1 cannot be adopted: %2").arg(m_id, why)));
    };
    QPointer<SandboxLauncher> self(this);
    m_lifecycle->getSandbox(m_id, [self, generation, refuse](Result<QJsonObject, LifecycleError> r) {
        if (!self || generation != self->m_generation)
            return;
        if (!r.ok())
            return refuse(r.error().message);
        const QString state = r.value().value(QStringLiteral("status")).toObject().value(QStringLiteral("state")).toString();
        if (state != QLatin1String("Running") && state != QLatin1String("Paused"))
            return refuse(QStringLiteral("the runtime has it %1").arg(state));
        const bool paused = state == QLatin1String("Paused");
        self->fetchEndpoint(generation, [self, generation, paused, refuse] {
            if (paused) {
                self->setState(SandboxState::Paused);
                if (Callback done = std::exchange(self->m_pending, {}))
                    done({});
                return;
            }
            self->m_since.start();
            self->waitForExecd(generation, [self, generation, refuse] {
                // A sandbox of an engine that set no token (or another runtime key) is left as it
                // is: it may hold running work, but this engine does not drive an open execd.
                self->checkExecdClosed(generation, [self] { self->succeed(); }, refuse);
            });
        });
    });
}

void SandboxLauncher::fetchEndpoint(quint64 generation, std::function<void()> then)
{
    QPointer<SandboxLauncher> self(this);
    m_lifecycle->endpoint(m_id, ExecdClient::Port, [self, generation, then](Result<QJsonObject, LifecycleError> r) {
        if (!self || generation != self->m_generation)
            return;
        if (!r.ok())
            return self->fail(fromLifecycle(r.error(), QStringLiteral("no endpoint for execd")));
        const QString where = r.value().value(QStringLiteral("endpoint")).toString();
        const QUrl base(where.contains(QLatin1String("://")) ? where : QStringLiteral("http://") + where);
        if (!base.isValid() || base.host().isEmpty())
            return self->fail(SandboxError::failed(QStringLiteral("execd's endpoint %1 is not a URL").arg(where)));
        // The Docker runtime's endpoint carries no token (only the Kubernetes one mints them):
        // execd has the one this launcher derived and put in its environment.
        self->m_execd = std::make_unique<ExecdClient>(self->m_network, base, self->m_token);
        if (then)
            return then();
        self->m_since.start();
        self->waitForExecd(generation, [self, generation] {
            self->checkExecdClosed(
                generation, [self, generation] { self->prepare(generation); },
                [self](const QString &why) {
                    self->fail(SandboxError::refused(QStringLiteral("launch refused: %1").arg(why)));
                });
        });
    });
}

void SandboxLauncher::checkExecdClosed(
    quint64 generation, std::function<void()> then, std::function<void(const QString &)> open)
{
    // execd answered with the token; it must also refuse a request without one. A runtime that did
    // not pass EXECD_ACCESS_TOKEN on has an execd that answers every process that reaches its port.
    auto *probe = new ExecdClient(m_network, m_execd->base(), {}, this);
    probe->setTimeout(m_timeouts.execdMs);
    QPointer<SandboxLauncher> self(this);
    probe->ping([self, probe, generation, then = std::move(then), open = std::move(open)](Result<bool, ExecdError> r) {
        probe->deleteLater();
        if (!self || generation != self->m_generation)
            return;
        if (!r.ok() && r.error().status == 401)
            return then();
        open(r.ok() ? QStringLiteral("execd in sandbox %1 answers without its access token (the runtime did not "
                                     "give it EXECD_ACCESS_TOKEN; see docs/runtime.md)")
                            .arg(self->m_id)
                    : QStringLiteral("execd in sandbox %1 did not refuse a request without its access token: %2")
                            .arg(self->m_id, r.error().message));
    });
}

void SandboxLauncher::setAccessToken(QByteArray token)
{
    if (token == m_token)
        return;
    if (!m_token.isEmpty())
        logging::removeRedaction(m_token);
    m_token = std::move(token);
    logging::addRedaction(m_token);
}

void SandboxLauncher::waitForExecd(quint64 generation, std::function<void()> then)
{
    QPointer<SandboxLauncher> self(this);
    m_execd->ping([self, generation, then = std::move(then)](Result<bool, ExecdError> r) {
        if (!self || generation != self->m_generation)
            return;
        if (r.ok())
            return then();
        if (r.error().status == 401) {
            return self->fail(SandboxError::failed(
                QStringLiteral("execd in sandbox %1 refuses this engine's access token (another engine made it, "
                               "or the runtime's key changed)")
                    .arg(self->m_id)));
        }
        if (self->m_since.elapsed() > self->m_timeouts.execdMs) {
            return self->fail(
                SandboxError::failed(QStringLiteral("execd in the sandbox never answered: %1").arg(r.error().message)));
        }
        QTimer::singleShot(self->m_timeouts.pollMs, self, [self, generation, then] {
            if (self && generation == self->m_generation)
                self->waitForExecd(generation, then);
        });
    });
}

void SandboxLauncher::prepare(quint64 generation)
{
    setState(SandboxState::Preparing);
    // Sandboxes run as root without capabilities: on a host where the worktree belongs to another
    // user (a non-root engine with rootful Docker), root in the sandbox cannot write to it. Said
    // plainly here rather than by a failing agent later (docs/runtime.md, "The worktree").
    QPointer<SandboxLauncher> self(this);
    const QString probe
        = QStringLiteral("d=%1/.isolation-write-check.$$; mkdir \"$d\" && rmdir \"$d\"").arg(QLatin1String(kWorkspace));
    m_execd->runCommand(probe, {}, [self, generation](Result<CommandOutput, ExecdError> r) {
        if (!self || generation != self->m_generation)
            return;
        if (!r.ok())
            return self->fail(SandboxError::unavailable(QStringLiteral("execd: %1").arg(r.error().message)));
        if (r.value().exitCode != 0) {
            return self->fail(SandboxError::failed(
                QStringLiteral("the sandbox cannot write to %1 (%2): the worktree belongs to a user the sandbox's "
                               "root is not, and sandboxes run without capabilities; see docs/runtime.md, "
                               "\"The worktree\"")
                    .arg(QLatin1String(kWorkspace), QString::fromUtf8(r.value().stdErr.trimmed()))));
        }
        auto afterSecrets = [self, generation](Status delivered) {
            if (!self || generation != self->m_generation)
                return;
            if (!delivered.ok()) {
                return self->fail(SandboxError {
                    delivered.error().retryable() ? SandboxError::Code::Unavailable : SandboxError::Code::Failed,
                    delivered.error().message});
            }
            self->runPostCreate(generation, 0);
        };
        if (self->m_secrets && !self->m_secrets->isEmpty() && !self->m_request.secretsDirectory.isEmpty())
            SecretDelivery::deliverFiles(
                self->m_execd.get(), *self->m_secrets, self->m_request.secretsDirectory, afterSecrets);
        else
            afterSecrets({});
    });
}

void SandboxLauncher::runPostCreate(quint64 generation, int index)
{
    if (index >= m_request.postCreateCommands.size())
        return succeed();
    QPointer<SandboxLauncher> self(this);
    m_execd->runCommand(command(m_request.postCreateCommands.at(index)),
        [self, generation, index](Result<CommandOutput, ExecdError> r) {
            if (!self || generation != self->m_generation)
                return;
            if (!r.ok())
                return self->fail(
                    SandboxError::unavailable(QStringLiteral("postCreateCommand: %1").arg(r.error().message)));
            const QString output
                = logging::redact(QString::fromUtf8(r.value().stdOut) + QString::fromUtf8(r.value().stdErr));
            self->m_postCreateOutput += output;
            if (r.value().exitCode != 0) {
                return self->fail(SandboxError::failed(QStringLiteral("postCreateCommand %1 failed with status %2: %3")
                                                           .arg(index + 1)
                                                           .arg(r.value().exitCode)
                                                           .arg(output.right(500).trimmed())));
            }
            self->runPostCreate(generation, index + 1);
        });
}

void SandboxLauncher::succeed()
{
    setState(SandboxState::Running);
    if (Callback done = std::exchange(m_pending, {}))
        done({});
}

void SandboxLauncher::fail(SandboxError error)
{
    error.message = logging::redact(error.message);
    qCWarning(lcSandbox).noquote() << QStringLiteral("session %1: %2").arg(m_request.sessionId, error.message);
    if (!m_id.isEmpty()
        && (m_state == SandboxState::Creating || m_state == SandboxState::Starting
            || m_state == SandboxState::Preparing)) {
        // A launch that failed leaves nothing running.
        m_lifecycle->deleteSandbox(m_id, [](auto) {});
        m_id.clear();
    }
    if (m_state == SandboxState::Resuming) {
        setState(SandboxState::Paused);
    } else {
        ++m_generation;
        setState(SandboxState::Failed);
    }
    if (Callback done = std::exchange(m_pending, {}))
        done(error);
}

void SandboxLauncher::pause(Callback done)
{
    if (m_state != SandboxState::Running)
        return later(std::move(done), SandboxError::refused(QStringLiteral("only a running sandbox can be paused")));
    setState(SandboxState::Pausing);
    const quint64 generation = m_generation;
    QPointer<SandboxLauncher> self(this);
    m_lifecycle->pauseSandbox(m_id, [self, generation, done = std::move(done)](Result<QJsonObject, LifecycleError> r) {
        if (!self)
            return;
        if (generation != self->m_generation)
            return done(SandboxError::cancelled(QStringLiteral("the sandbox was removed")));
        if (!r.ok()) {
            self->setState(SandboxState::Running);
            return done(fromLifecycle(r.error(), QStringLiteral("cannot pause the sandbox")));
        }
        self->setState(SandboxState::Paused);
        done({});
    });
}

void SandboxLauncher::snapshot(const QString &name, std::function<void(Result<QString, SandboxError>)> done)
{
    if (m_state != SandboxState::Running) {
        QTimer::singleShot(0, this, [done = std::move(done)] {
            done(SandboxError::refused(QStringLiteral("only a running sandbox can be snapshotted")));
        });
        return;
    }
    const quint64 generation = m_generation;
    QPointer<SandboxLauncher> self(this);
    m_lifecycle->createSnapshot(m_id, name, [self, generation, done = std::move(done)](Result<QJsonObject, LifecycleError> r) {
        if (!self)
            return;
        if (generation != self->m_generation)
            return done(SandboxError::cancelled(QStringLiteral("the sandbox was removed")));
        if (!r.ok())
            return done(fromLifecycle(r.error(), QStringLiteral("cannot snapshot the sandbox")));
        const QString id = r.value().value(QStringLiteral("id")).toString();
        if (id.isEmpty())
            return done(SandboxError::failed(QStringLiteral("the runtime made a snapshot without an id")));
        QElapsedTimer since;
        since.start();
        self->pollSnapshot(generation, id, since, done);
    });
}

void SandboxLauncher::pollSnapshot(quint64 generation, const QString &snapshotId, QElapsedTimer since,
    std::function<void(Result<QString, SandboxError>)> done)
{
    QPointer<SandboxLauncher> self(this);
    LifecycleClient *lifecycle = m_lifecycle;
    m_lifecycle->getSnapshot(snapshotId, [self, generation, snapshotId, since, done, lifecycle](
                                             Result<QJsonObject, LifecycleError> r) {
        if (!self)
            return;
        const QJsonObject status = r.ok() ? r.value().value(QStringLiteral("status")).toObject() : QJsonObject();
        const QString state = status.value(QStringLiteral("state")).toString();
        if (state == QLatin1String("Ready"))
            return done(snapshotId);
        QString why;
        if (generation != self->m_generation)
            why = QStringLiteral("the sandbox was removed");
        else if (state == QLatin1String("Failed"))
            why = QStringLiteral("the snapshot failed: %1")
                      .arg(status.value(QStringLiteral("message")).toString(status.value(QStringLiteral("reason")).toString()));
        else if (!r.ok() && !r.error().retryable())
            why = QStringLiteral("cannot read the snapshot: %1").arg(r.error().message);
        else if (since.elapsed() > self->m_timeouts.runningMs)
            why = QStringLiteral("the snapshot was not ready within %1 s").arg(self->m_timeouts.runningMs / 1000);
        if (!why.isEmpty()) {
            lifecycle->deleteSnapshot(snapshotId, [](auto) {}); // what is left of it
            return done(SandboxError::failed(why));
        }
        QTimer::singleShot(self->m_timeouts.pollMs, self, [self, generation, snapshotId, since, done] {
            if (self)
                self->pollSnapshot(generation, snapshotId, since, done);
        });
    });
}

void SandboxLauncher::resume(Callback done)
{
    if (m_state != SandboxState::Paused)
        return later(std::move(done), SandboxError::refused(QStringLiteral("only a paused sandbox can be resumed")));
    setState(SandboxState::Resuming);
    m_pending = std::move(done);
    const quint64 generation = m_generation;
    QPointer<SandboxLauncher> self(this);
    m_lifecycle->resumeSandbox(m_id, [self, generation](Result<QJsonObject, LifecycleError> r) {
        if (!self || generation != self->m_generation)
            return;
        if (!r.ok())
            return self->fail(fromLifecycle(r.error(), QStringLiteral("cannot resume the sandbox")));
        self->m_since.start();
        self->waitForExecd(generation, [self] { self->succeed(); });
    });
}

void SandboxLauncher::remove(Callback done)
{
    ++m_generation; // every step in flight stops where it is
    if (m_buildCancel)
        *m_buildCancel = true;
    if (Callback pending = std::exchange(m_pending, {}))
        later(std::move(pending), SandboxError::cancelled(QStringLiteral("the sandbox was removed")));
    if (m_id.isEmpty() && m_state == SandboxState::Creating) {
        // A create in flight: its answer deletes what it made, then this removal is done.
        if (Callback earlier = std::exchange(m_removedAfterCreate, std::move(done)))
            later(std::move(earlier), SandboxError::cancelled(QStringLiteral("another removal took over")));
        setState(SandboxState::Deleting);
        return;
    }
    if (m_id.isEmpty()) {
        // Nothing made yet.
        setState(SandboxState::Deleted);
        return later(std::move(done), {});
    }
    setState(SandboxState::Deleting);
    const quint64 generation = m_generation;
    QPointer<SandboxLauncher> self(this);
    m_lifecycle->deleteSandbox(m_id, [self, generation, done = std::move(done)](Result<QJsonObject, LifecycleError> r) {
        if (!self)
            return;
        if (generation != self->m_generation)
            return done(SandboxError::cancelled(QStringLiteral("another removal took over")));
        if (!r.ok() && !(r.error().code == LifecycleError::Code::Rejected && r.error().status == 404)) {
            self->setState(SandboxState::Failed);
            return done(fromLifecycle(r.error(), QStringLiteral("cannot delete the sandbox")));
        }
        self->m_id.clear();
        self->setState(SandboxState::Deleted);
        done({});
    });
}

} // namespace isolation
