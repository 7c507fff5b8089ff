#include "hubclient.h"

#include "core/huburl.h"
#include "core/version.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>

Q_LOGGING_CATEGORY(lcHubApi, "isolation.hubapi")

namespace isolation {

HubClient::HubClient(QNetworkAccessManager *network, QObject *parent)
    : QObject(parent)
    , m_network(network)
{ }

void HubClient::call(const QByteArray &method, const QString &path, const QJsonObject &body, Callback done)
{
    auto checked = HubUrl::check(m_base);
    if (!checked) {
        qCWarning(lcHubApi) << "not calling" << path << ":" << checked.error().message;
        HubError refused {HubError::Code::Refused, 0, {}, checked.error().message, {}};
        // Later, as an answer would come: callers may not expect their callback inside call().
        QMetaObject::invokeMethod(
            this, [done = std::move(done), refused] { done(refused); }, Qt::QueuedConnection);
        return;
    }
    QUrl url = checked.value();
    url.setPath(path);
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("isolation-engine/" ISOLATION_VERSION));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(m_timeoutMs);
    if (!m_credential.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_credential);
    QByteArray payload;
    if (!body.isEmpty() || method == "POST" || method == "PUT") {
        payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    }
    QNetworkReply *reply = m_network->sendCustomRequest(request, method, payload);
    QPointer<HubClient> self(this);
    const int wait = m_timeoutMs;
    connect(reply, &QNetworkReply::finished, this, [reply, self, done = std::move(done), path, wait] {
        reply->deleteLater();
        if (!self)
            return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0) {
            // Nothing here aborts a request: one "canceled" is the transfer timeout's.
            const QString why = reply->error() == QNetworkReply::OperationCanceledError
                ? QStringLiteral("nothing came from the hub for %1 s").arg(wait / 1000.0)
                : reply->errorString();
            HubError e {HubError::Code::Unreachable, 0, {}, QStringLiteral("cannot reach the hub: %1").arg(why), {}};
            done(e);
            return;
        }
        const QByteArray data = reply->readAll();
        QJsonParseError pe {};
        const QJsonDocument doc = data.isEmpty() ? QJsonDocument(QJsonObject()) : QJsonDocument::fromJson(data, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            qCWarning(lcHubApi) << "hub answered" << status << "with a body that is not JSON for" << path;
            done(HubError {HubError::Code::Garbage, status, {},
                QStringLiteral("the hub answered something that is not the Isolation protocol (HTTP %1)").arg(status),
                {}});
            return;
        }
        const QJsonObject object = doc.object();
        if (status >= 200 && status <= 299) {
            done(object);
            return;
        }
        const QJsonObject error = object.value(QStringLiteral("error")).toObject();
        if (error.isEmpty()) {
            done(HubError {HubError::Code::Garbage, status, {},
                QStringLiteral("the hub answered HTTP %1 without an error body").arg(status), object});
            return;
        }
        done(HubError {HubError::Code::Rejected, status, error.value(QStringLiteral("code")).toString(),
            error.value(QStringLiteral("message")).toString(QStringLiteral("HTTP %1").arg(status)), object});
    });
}

} // namespace isolation
