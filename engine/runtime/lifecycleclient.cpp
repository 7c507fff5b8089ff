#include "lifecycleclient.h"

#include "mountpolicy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QTimer>

namespace isolation {

namespace {

QJsonObject toObject(const QHash<QString, QString> &map)
{
    QJsonObject o;
    for (auto it = map.begin(); it != map.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

} // namespace

LifecycleClient::LifecycleClient(
    QNetworkAccessManager *network, QUrl base, QByteArray apiKey, const MountPolicy *mounts, QObject *parent)
    : QObject(parent)
    , m_network(network)
    , m_base(std::move(base))
    , m_apiKey(std::move(apiKey))
    , m_mounts(mounts)
{ }

Result<QJsonObject, LifecycleError> LifecycleClient::createRequest(const SandboxSpec &spec) const
{
    QJsonArray volumes;
    for (const auto &m : spec.mounts) {
        auto checked = m_mounts ? m_mounts->check(m.hostPath)
                                : Result<QString>(Error::invalidInput(QStringLiteral("no mount policy")));
        if (!checked)
            return LifecycleError {
                LifecycleError::Code::Refused, 0, QStringLiteral("mount_refused"), checked.error().message};
        volumes.append(QJsonObject {{QStringLiteral("name"), m.name},
            {QStringLiteral("host"), QJsonObject {{QStringLiteral("path"), checked.value()}}},
            {QStringLiteral("mountPath"), m.mountPath}, {QStringLiteral("readOnly"), m.readOnly}});
    }
    QJsonObject body {
        {QStringLiteral("entrypoint"), QJsonArray::fromStringList(spec.entrypoint)},
        {QStringLiteral("resourceLimits"), toObject(spec.resourceLimits)},
    };
    // Exactly one startup source.
    if (spec.snapshotId.isEmpty())
        body.insert(QStringLiteral("image"), QJsonObject {{QStringLiteral("uri"), spec.image}});
    else
        body.insert(QStringLiteral("snapshotId"), spec.snapshotId);
    if (spec.timeoutSeconds)
        body.insert(QStringLiteral("timeout"), *spec.timeoutSeconds);
    if (!spec.env.isEmpty())
        body.insert(QStringLiteral("env"), toObject(spec.env));
    if (!spec.metadata.isEmpty())
        body.insert(QStringLiteral("metadata"), toObject(spec.metadata));
    if (!volumes.isEmpty())
        body.insert(QStringLiteral("volumes"), volumes);
    return body;
}

void LifecycleClient::createSandbox(const SandboxSpec &spec, Callback done)
{
    auto body = createRequest(spec);
    if (!body) {
        QTimer::singleShot(0, this, [done = std::move(done), e = body.error()] { done(e); });
        return;
    }
    call("POST", QStringLiteral("/sandboxes"), body.value(), std::move(done));
}

void LifecycleClient::getSandbox(const QString &id, Callback done)
{
    call("GET", QStringLiteral("/sandboxes/%1").arg(id), std::nullopt, std::move(done));
}

void LifecycleClient::deleteSandbox(const QString &id, Callback done)
{
    call("DELETE", QStringLiteral("/sandboxes/%1").arg(id), std::nullopt, std::move(done));
}

void LifecycleClient::pauseSandbox(const QString &id, Callback done)
{
    call("POST", QStringLiteral("/sandboxes/%1/pause").arg(id), std::nullopt, std::move(done));
}

void LifecycleClient::resumeSandbox(const QString &id, Callback done)
{
    call("POST", QStringLiteral("/sandboxes/%1/resume").arg(id), std::nullopt, std::move(done));
}

void LifecycleClient::createSnapshot(const QString &sandboxId, const QString &name, Callback done)
{
    QJsonObject body;
    if (!name.isEmpty())
        body.insert(QStringLiteral("name"), name);
    call("POST", QStringLiteral("/sandboxes/%1/snapshots").arg(sandboxId), body, std::move(done));
}

void LifecycleClient::getSnapshot(const QString &snapshotId, Callback done)
{
    call("GET", QStringLiteral("/snapshots/%1").arg(snapshotId), std::nullopt, std::move(done));
}

void LifecycleClient::deleteSnapshot(const QString &snapshotId, Callback done)
{
    call("DELETE", QStringLiteral("/snapshots/%1").arg(snapshotId), std::nullopt, std::move(done));
}

void LifecycleClient::endpoint(const QString &id, quint16 port, Callback done)
{
    call("GET", QStringLiteral("/sandboxes/%1/endpoints/%2").arg(id).arg(port), std::nullopt, std::move(done));
}

void LifecycleClient::call(
    const QByteArray &method, const QString &path, const std::optional<QJsonObject> &body, Callback done)
{
    QUrl url = m_base;
    url.setPath(m_base.path() + path);
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(m_timeoutMs);
    request.setRawHeader("OPEN-SANDBOX-API-KEY", m_apiKey);
    request.setRawHeader("Accept", "application/json");
    QByteArray payload;
    if (body) {
        payload = QJsonDocument(*body).toJson(QJsonDocument::Compact);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    }
    QNetworkReply *reply = m_network->sendCustomRequest(request, method, payload);
    QPointer<LifecycleClient> self(this);
    connect(reply, &QNetworkReply::finished, this, [reply, self, done = std::move(done)] {
        reply->deleteLater();
        if (!self)
            return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0) {
            done(LifecycleError {LifecycleError::Code::Unreachable, 0, {},
                QStringLiteral("cannot reach the runtime: %1").arg(reply->errorString())});
            return;
        }
        const QByteArray data = reply->readAll();
        QJsonParseError pe {};
        const QJsonDocument doc
            = data.trimmed().isEmpty() ? QJsonDocument(QJsonObject()) : QJsonDocument::fromJson(data, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            done(LifecycleError {LifecycleError::Code::Garbage, status, {},
                QStringLiteral("the runtime answered HTTP %1 with a body that is not JSON").arg(status)});
            return;
        }
        const QJsonObject o = doc.object();
        if (status >= 200 && status <= 299) {
            done(o);
            return;
        }
        done(LifecycleError {LifecycleError::Code::Rejected, status, o.value(QStringLiteral("code")).toString(),
            o.value(QStringLiteral("message")).toString(QStringLiteral("HTTP %1").arg(status))});
    });
}

} // namespace isolation
