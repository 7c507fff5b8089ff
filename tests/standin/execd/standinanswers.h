// Answers both of the stand-in execd's APIs give: an error as execd writes it, and one event of an
// SSE stream (execd stamps each with the time).
#pragma once

#include "http/httpmessage.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

namespace isolation::standin {

inline HttpResponse apiError(int status, const char *code, const QString &message)
{
    return HttpResponse::json(
        status, QJsonObject {{QStringLiteral("code"), QLatin1String(code)}, {QStringLiteral("message"), message}});
}

inline QByteArray sseEvent(QJsonObject e)
{
    e.insert(QStringLiteral("timestamp"), QDateTime::currentMSecsSinceEpoch());
    return "data: " + QJsonDocument(e).toJson(QJsonDocument::Compact) + "\n\n";
}

} // namespace isolation::standin
