// The runtime module: Docker Engine API, the pinned OpenSandbox lifecycle container, and the
// lifecycle and execd clients written against the OpenSandbox specs (docs/runtime.md).
// DockerClient: Docker's Engine API over its unix socket (DOCKER_HOST honoured) through libcurl,
// with the API version negotiated from /version. Blocking: call it from a worker thread only.
#pragma once

#include "core/result.h"
#include "http/httpmessage.h"

#include <QHash>
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

// The figures of one image pull, summed from Docker's per-layer messages of /images/create
// ("Downloading", "Extracting" with progressDetail {current, total}) over the layers known so far.
struct PullProgress
{
    QString phase = QStringLiteral("pulling"); // "pulling" (layers downloading), then "extracting"
    qint64 bytes = 0; // of the phase, over every layer known so far
    qint64 totalBytes = -1; // the sizes of the layers known so far; -1: none known yet
    int layers = 0; // layers known so far
    QJsonObject message; // the message just taken (Docker's: status, id, progressDetail, ...)

    // Takes one of Docker's messages (and keeps it in `message`).
    void take(const QJsonObject &message);
    // "pulling 12.5 of 48.0 MiB", "extracting 3.0 of 48.0 MiB"; "pulling, 3 layers" before any size is known.
    QString describe() const;
    // `show`, called with a pull's figures at most every `intervalMs`, but at once when the phase
    // changes or completes (bytes == totalBytes), and never twice with the same figures.
    static std::function<void(const PullProgress &)> throttled(
        std::function<void(const PullProgress &)> show, int intervalMs = 250);

private:
    struct Layer
    {
        qint64 size = -1;
        qint64 downloaded = 0;
        qint64 extracted = 0;
    };
    QHash<QString, Layer> m_layers;
};

class DockerClient
{
public:
    // The oldest and newest Engine API versions this client speaks.
    static constexpr const char *MinApiVersion = "1.40";
    static constexpr const char *MaxApiVersion = "1.43";

    // A pull that gets no byte from Docker for this long fails (it has no total time cap).
    static constexpr int DefaultPullIdleMs = 120000;

    // `timeoutMs` caps every call but a pull (which has the idle limit instead).
    explicit DockerClient(QString socketPath, int timeoutMs = 120000);
    // From DOCKER_HOST (unix://PATH) or the default /var/run/docker.sock; tcp:// and others are refused.
    static Result<DockerClient, DockerError> fromEnvironment(
        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

    QString socketPath() const { return m_socket; }
    // Every later call gives up (Failed, "cancelled") once `cancel` is set.
    void setCancel(std::shared_ptr<const std::atomic_bool> cancel) { m_cancel = std::move(cancel); }
    void setPullIdleLimit(int ms) { m_pullIdleMs = ms; }
    int pullIdleLimit() const { return m_pullIdleMs; }
    QString apiVersion() const { return m_apiVersion; }

    // GET /version, and from then on the highest API version both sides speak.
    Result<QJsonObject, DockerError> negotiate();

    // A versioned call (/vX.Y + path). Non-2xx answers become errors carrying Docker's message.
    Result<QJsonValue, DockerError> call(
        const QByteArray &method, const QString &path, const QUrlQuery &query = {}, const QJsonValue &body = {}) const;
    Result<HttpResponse, DockerError> raw(const QByteArray &method, const QString &path, const QUrlQuery &query = {},
        const QByteArray &body = {}, const QByteArray &contentType = {}) const;

    Result<QJsonObject, DockerError> inspectImage(const QString &name) const;
    // Pulls from the image's registry; fails (NotFound or Failed) when it cannot be had. Docker's
    // messages are streamed: each goes to `progress` with the figures so far, as it comes (on
    // this thread; throttle what you show). An "error" message fails the pull with its text. No
    // total time cap: a slow network is no error, but no byte from Docker for pullIdleLimit() is.
    Result<void, DockerError> pullImage(
        const QString &name, const std::function<void(const PullProgress &)> &progress = {}) const;
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
    // POST `path` and hand each JSON line of the answer to `message` as it arrives (Docker's
    // progress streams: build, pull). Non-2xx answers and an "error" message become errors.
    Result<void, DockerError> streamJsonLines(const QString &path, const QUrlQuery &query, const QByteArray &body,
        const QByteArray &contentType, int timeoutMs, int idleTimeoutMs,
        const std::function<void(const QJsonObject &)> &message) const;

    QString m_socket;
    int m_timeoutMs;
    int m_pullIdleMs = DefaultPullIdleMs;
    QString m_apiVersion;
    std::shared_ptr<const std::atomic_bool> m_cancel;
};

} // namespace isolation
