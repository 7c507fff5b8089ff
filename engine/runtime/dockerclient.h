// The runtime module: Docker Engine API, the pinned OpenSandbox lifecycle container, and the
// lifecycle and execd clients written against the OpenSandbox specs (docs/runtime.md).
// DockerClient: Docker's Engine API over its unix socket (DOCKER_HOST honoured) through libcurl,
// with the API version negotiated from /version. Blocking: call it from a worker thread only.
#pragma once

#include "core/result.h"
#include "http/httpmessage.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QString>
#include <QUrlQuery>

#include <atomic>
#include <functional>
#include <memory>

namespace isolation {

struct DockerError
{
    enum class Code {
        NoDaemon, // no Docker daemon answers on the socket (not installed or not running)
        PermissionDenied, // the socket exists but this user may not use it
        NotFound, // the image or container named does not exist
        PortTaken, // a port to publish is already in use on the host
        Failed, // Docker refused or failed; the message is Docker's
    };
    Code code = Code::Failed;
    int status = 0; // HTTP status of Docker's answer, 0 when there was none
    QString message;

    bool retryable() const { return code == Code::NoDaemon; }
};

class DockerClient
{
public:
    // The oldest and newest Engine API versions this client speaks.
    static constexpr const char *MinApiVersion = "1.40";
    static constexpr const char *MaxApiVersion = "1.43";

    explicit DockerClient(QString socketPath, int timeoutMs = 120000);
    // From DOCKER_HOST (unix://PATH) or the default /var/run/docker.sock; tcp:// and others are refused.
    static Result<DockerClient, DockerError> fromEnvironment(
        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

    QString socketPath() const { return m_socket; }
    // Every later call gives up (Failed, "cancelled") once `cancel` is set.
    void setCancel(std::shared_ptr<const std::atomic_bool> cancel) { m_cancel = std::move(cancel); }
    QString apiVersion() const { return m_apiVersion; }

    // GET /version, and from then on the highest API version both sides speak.
    Result<QJsonObject, DockerError> negotiate();

    // A versioned call (/vX.Y + path). Non-2xx answers become errors carrying Docker's message.
    Result<QJsonValue, DockerError> call(
        const QByteArray &method, const QString &path, const QUrlQuery &query = {}, const QJsonValue &body = {}) const;
    Result<HttpResponse, DockerError> raw(const QByteArray &method, const QString &path, const QUrlQuery &query = {},
        const QByteArray &body = {}, const QByteArray &contentType = {}) const;

    Result<QJsonObject, DockerError> inspectImage(const QString &name) const;
    // Pulls from the image's registry; fails (NotFound or Failed) when it cannot be had.
    Result<void, DockerError> pullImage(const QString &name) const;
    // POST /build with `tarContext` (an uncompressed tar) and the query's parameters (t, dockerfile,
    // buildargs, ...); every JSON message of Docker's output stream goes to `message` as it comes.
    // An "error" message fails the call with its text; Docker then has tagged nothing.
    Result<void, DockerError> buildImage(const QUrlQuery &query, const QByteArray &tarContext,
        const std::function<void(const QJsonObject &)> &message) const;
    // DELETE /images/NAME (untagged; the layers go when nothing else uses them); NotFound is success.
    Result<void, DockerError> removeImage(const QString &name) const;
    Result<QJsonObject, DockerError> inspectContainer(const QString &nameOrId) const;
    // Containers (running or not) carrying every label given (key=value).
    Result<QJsonArray, DockerError> listContainers(const QStringList &labels) const;
    Result<QString, DockerError> createContainer(const QString &name, const QJsonObject &spec) const;
    Result<void, DockerError> startContainer(const QString &id) const;
    Result<void, DockerError> restartContainer(const QString &id, int timeoutSeconds = 10) const;
    Result<void, DockerError> removeContainer(const QString &id, bool force = true) const;

private:
    DockerError transportError(int curlCode, int osErrno, const QString &what) const;

    QString m_socket;
    int m_timeoutMs;
    QString m_apiVersion;
    std::shared_ptr<const std::atomic_bool> m_cancel;
};

} // namespace isolation
