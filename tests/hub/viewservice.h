// The hub's views (docs/protocol.md, "Views"): mints view tokens for the member with the hub's
// Ed25519 key (admin API, `isolation-hub view`, the /views page), and remembers which server
// each view lives on (DIR/views.json) so the preview origin can relay to it.
#pragma once

#include "core/clock.h"
#include "core/result.h"
#include "http/httpserver.h"
#include "views/viewtoken.h"

#include <QHash>
#include <QUrl>

#include <functional>

namespace isolation::hub {

class ActionLog;
class HubState;

struct ViewRecord
{
    QString id;
    QString serverId;
    QString sessionId;
    ViewKind kind = ViewKind::Preview;
    int port = 0;
    qint64 createdAt = 0;
};

class ViewService
{
public:
    using PreviewHost = std::function<QString(const QString &viewId)>; // "<id>.preview.localhost:8471"

    ViewService(HubState &state, ActionLog &log, const Clock &clock, QString file, PreviewHost host);
    Status load();

    void registerRoutes(HttpServer &app, const std::function<bool(const HttpRequest &)> &isAdmin);

    // A new view of `session` on `server` (empty: the one paired server), and its first URL.
    Result<QJsonObject> create(const QString &serverId, const QString &sessionId, ViewKind kind, int port);
    // A fresh token for a known view (tokens are single use), as its URL.
    Result<QUrl> openUrl(const QString &viewId, qint64 lifetimeSeconds = ViewToken::MaxLifetimeSeconds);
    const ViewRecord *view(const QString &id) const;

private:
    Status save() const;
    QByteArray pageHtml() const;

    HubState &m_state;
    ActionLog &m_log;
    const Clock &m_clock;
    QString m_file;
    PreviewHost m_host;
    QHash<QString, ViewRecord> m_views;
};

} // namespace isolation::hub
