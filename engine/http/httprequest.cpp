#include "httprequest.h"

#include <QJsonDocument>

namespace isolation {

QByteArray forwardedFor(const QHostAddress &peer)
{
    thread_local QHostAddress lastPeer;
    thread_local QByteArray lastText;
    if (lastText.isEmpty() || peer != lastPeer) {
        bool v4 = false;
        const quint32 ip4 = peer.toIPv4Address(&v4);
        lastText = (v4 ? QHostAddress(ip4) : peer).toString().toLatin1();
        lastPeer = peer;
    }
    return lastText;
}

bool HttpRequest::jsonBody(QJsonObject *out, QString *error) const
{
    if (body.trimmed().isEmpty()) {
        *out = {};
        return true;
    }
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &pe);
    if (pe.error == QJsonParseError::NoError && doc.isObject()) {
        *out = doc.object();
        return true;
    }
    if (error) {
        const QByteArray declared = header("content-type").split(';').first().trimmed().toLower();
        if (!declared.isEmpty() && declared != "application/json")
            *error = QStringLiteral("the body must be JSON (Content-Type: application/json), not %1")
                         .arg(QString::fromLatin1(declared));
        else if (pe.error != QJsonParseError::NoError)
            *error = QStringLiteral("the body is not valid JSON: %1 at byte %2").arg(pe.errorString()).arg(pe.offset);
        else
            *error = QStringLiteral("the body must be a JSON object");
    }
    return false;
}

QByteArray HttpRequest::bearerToken() const
{
    const QByteArray value = header("authorization");
    static const QByteArray prefix = QByteArrayLiteral("bearer ");
    if (value.size() <= prefix.size() || !value.first(prefix.size()).toLower().startsWith(prefix))
        return {};
    return value.mid(prefix.size()).trimmed();
}

} // namespace isolation
