// Client of the OpenSandbox lifecycle API (sandbox-lifecycle.yml, base path /v1), written
// against the spec: create, get, delete, pause, resume sandboxes and their endpoints. Host
// mounts pass the engine's MountPolicy before anything is sent. Asynchronous, on the event loop.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <optional>

class QNetworkAccessManager;

namespace isolation {

class MountPolicy;

struct LifecycleError
{
    enum class Code {
        Unreachable, // no answer (connection refused, timeout): retry later
        Refused, // the engine refused before sending (a mount outside the session directory...)
        Rejected, // the server answered an error (status and code say which; 401: wrong API key)
        Garbage, // the server answered something that is not the lifecycle API
    };
    Code code = Code::Unreachable;
    int status = 0;
    QString errorCode; // ErrorResponse.code
    QString message;

    bool retryable() const { return code == Code::Unreachable || (code == Code::Rejected && status >= 500); }
};

struct SandboxSpec
{
    struct HostMount
    {
        QString name; // a DNS label
        QString hostPath; // must pass the MountPolicy
        QString mountPath; // absolute, inside the sandbox
        bool readOnly = false;
    };
    QString image;
    QString snapshotId; // set: restored from this snapshot instead of `image`
    QStringList entrypoint;
    QHash<QString, QString> env;
    QHash<QString, QString> metadata;
    QHash<QString, QString> resourceLimits {
        {QStringLiteral("cpu"), QStringLiteral("1000m")}, {QStringLiteral("memory"), QStringLiteral("1Gi")}};
    std::optional<int> timeoutSeconds; // none: no expiry, the engine deletes the sandbox
    QList<HostMount> mounts;
};

class LifecycleClient final : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(Result<QJsonObject, LifecycleError>)>;

    // `base` is the API root (http://127.0.0.1:PORT/v1); `mounts` is checked before every create.
    LifecycleClient(QNetworkAccessManager *network, QUrl base, QByteArray apiKey, const MountPolicy *mounts,
        QObject *parent = nullptr);

    void setTimeout(int ms) { m_timeoutMs = ms; }
    // Where the lifecycle server is now (the runtime restarted it on another port, with another key).
    void setEndpoint(QUrl base, QByteArray apiKey)
    {
        m_base = std::move(base);
        m_apiKey = std::move(apiKey);
    }
    // The runtime's API key: what each sandbox's execd access token is derived from (execdtoken.h).
    QByteArrayView apiKey() const { return m_apiKey; }

    // The request body of a create (CreateSandboxRequest), or the refusal of a mount.
    Result<QJsonObject, LifecycleError> createRequest(const SandboxSpec &spec) const;

    void createSandbox(const SandboxSpec &spec, Callback done);
    void getSandbox(const QString &id, Callback done);
    void deleteSandbox(const QString &id, Callback done);
    void pauseSandbox(const QString &id, Callback done);
    void resumeSandbox(const QString &id, Callback done);
    // POST /sandboxes/{id}/snapshots: answers the Snapshot (state Creating; poll getSnapshot).
    void createSnapshot(const QString &sandboxId, const QString &name, Callback done);
    void getSnapshot(const QString &snapshotId, Callback done);
    void deleteSnapshot(const QString &snapshotId, Callback done);
    // Endpoint {endpoint, headers} of a port inside the sandbox (execd: 44772).
    void endpoint(const QString &id, quint16 port, Callback done);

    // Every callback runs once, on this object's thread, later (never inside the call), unless
    // the client was destroyed first.
    void call(const QByteArray &method, const QString &path, const std::optional<QJsonObject> &body, Callback done);

private:
    QNetworkAccessManager *m_network;
    QUrl m_base;
    QByteArray m_apiKey;
    const MountPolicy *m_mounts;
    int m_timeoutMs = 60000;
};

} // namespace isolation
