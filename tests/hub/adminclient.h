// Admin verbs' client: reads DIR/admin.json (URL and token written by `serve`) and calls the
// running hub's admin API. Blocking; for the command line only.
#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace isolation::hub {

class AdminClient
{
public:
    static Result<AdminClient> open(const QString &dataDir);

    // Calls the admin API; a non-2xx answer is an error carrying the hub's message, and its error
    // object in `*errorBody` when given.
    Result<QJsonObject> call(const QByteArray &method, const QString &path, const QJsonObject &body = {},
        int timeoutMs = 30000, QJsonObject *errorBody = nullptr) const;
    QUrl url() const { return m_url; }

private:
    QUrl m_url;
    QByteArray m_token;
};

} // namespace isolation::hub
