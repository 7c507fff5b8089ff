// Stand-ins only: each request a stand-in receives is printed to stdout as one line
// "ISOLATION-STANDIN-REQUEST {json}" (method, path, query, headers without secrets, JSON body
// with the values of a command's `envs` redacted, since launch secrets travel there), so a test
// can read them with `docker logs` and check them against the OpenAPI specs.
#pragma once

#include "http/httprequest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrlQuery>

#include <cstdio>

namespace isolation::standin {

inline void recordRequest(const char *api, const HttpRequest &request)
{
    QJsonObject headers;
    for (const auto &[name, value] : request.headers) {
        const QByteArray lower = name.toLower();
        const bool secret = lower == "open-sandbox-api-key" || lower == "x-execd-access-token"
            || lower == "authorization" || lower == "cookie";
        headers.insert(QString::fromLatin1(lower), secret ? QStringLiteral("[redacted]") : QString::fromUtf8(value));
    }
    QJsonObject query;
    for (const auto &[k, v] : request.query.queryItems(QUrl::FullyDecoded))
        query.insert(k, v);
    QJsonObject record {{QStringLiteral("api"), QLatin1String(api)},
        {QStringLiteral("method"), QString::fromLatin1(request.method)}, {QStringLiteral("path"), request.path},
        {QStringLiteral("query"), query}, {QStringLiteral("headers"), headers}};
    const QByteArray type = request.header("content-type");
    if (type.startsWith("application/json")) {
        const QJsonDocument doc = QJsonDocument::fromJson(request.body);
        QJsonObject body = doc.object();
        if (body.value(QStringLiteral("envs")).isObject()) {
            QJsonObject envs = body.value(QStringLiteral("envs")).toObject();
            for (auto it = envs.begin(); it != envs.end(); ++it)
                it.value() = QStringLiteral("[redacted]");
            body.insert(QStringLiteral("envs"), envs);
        }
        record.insert(QStringLiteral("body"), doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(body));
        record.insert(QStringLiteral("bodyIsJson"), !doc.isNull());
    }
    const QByteArray line = "ISOLATION-STANDIN-REQUEST " + QJsonDocument(record).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fflush(stdout);
}

} // namespace isolation::standin
