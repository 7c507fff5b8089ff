#include "adminclient.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace isolation::hub {

Result<AdminClient> AdminClient::open(const QString &dataDir)
{
    QFile file(dataDir + QStringLiteral("/admin.json"));
    if (!file.open(QIODevice::ReadOnly))
        return Error::notFound(QStringLiteral("no running hub found: %1 is missing (start one with "
                                              "`isolation-hub serve --data %2`)")
                                   .arg(file.fileName(), dataDir));
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    AdminClient client;
    client.m_url = QUrl(o.value(QStringLiteral("url")).toString());
    client.m_token = o.value(QStringLiteral("token")).toString().toLatin1();
    if (!client.m_url.isValid() || client.m_token.isEmpty())
        return Error::invalidInput(QStringLiteral("%1 is not a valid admin file").arg(file.fileName()));
    return client;
}

Result<QJsonObject> AdminClient::call(
    const QByteArray &method, const QString &path, const QJsonObject &body, int timeoutMs, QJsonObject *errorBody) const
{
    QNetworkAccessManager nam;
    QUrl url = m_url;
    url.setPath(path);
    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + m_token);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    const QByteArray payload = body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
    QNetworkReply *reply = nam.sendCustomRequest(request, method, payload);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    if (!reply->isFinished()) {
        reply->abort();
        reply->deleteLater();
        return Error::unavailable(QStringLiteral("the hub at %1 did not answer in time").arg(m_url.toString()));
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray data = reply->readAll();
    const auto netError = reply->error();
    const QString netErrorText = reply->errorString();
    reply->deleteLater();
    if (status == 0)
        return Error::unavailable(QStringLiteral("cannot reach the hub at %1: %2").arg(m_url.toString(), netErrorText));
    Q_UNUSED(netError);
    const QJsonObject object = QJsonDocument::fromJson(data).object();
    if (status < 200 || status > 299) {
        const QJsonObject error = object.value(QStringLiteral("error")).toObject();
        if (errorBody)
            *errorBody = error;
        const QString message = error.value(QStringLiteral("message")).toString();
        return Error::failed(message.isEmpty() ? QStringLiteral("HTTP %1").arg(status) : message);
    }
    return object;
}

} // namespace isolation::hub
