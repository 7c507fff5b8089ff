// The preview origin's relay: every HTTP request and WebSocket on "<viewId>.preview.localhost"
// goes, as a stream over that view's server's tunnel, to `/v/<viewId>/...` on the engine, whose
// doorman decides. The hub adds X-Forwarded-For/-Proto/-Host (replacing any the browser sent)
// and passes hop-by-hop headers on to no one. Bodies stream both ways with flow control.
// Host names other than "<viewId>.preview.localhost" and "preview.localhost" get 421.
#pragma once

#include "http/httpserver.h"
#include "requestguard.h"

#include <QObject>

namespace isolation::hub {

class TunnelRegistry;
class ViewService;

class ViewRelay final : public QObject
{
    Q_OBJECT
public:
    // `suffix`: the preview host names' suffix ("preview.localhost").
    ViewRelay(ViewService &views, TunnelRegistry &tunnels, QString suffix, QObject *parent = nullptr);
    void registerRoutes(HttpServer &preview);

    // The view id of a preview host name ("<viewId>.<suffix>[:port]"), or empty.
    QString viewIdFromHost(QByteArrayView host) const;

private:
    Result<std::unique_ptr<HttpBodySink>, HttpResponse> open(const HttpRequest &head);
    bool upgrade(const HttpRequest &request, QIODevice *device, const QByteArray &rest);
    QString parseViewIdFromHost(QByteArrayView host) const;

    ViewService &m_views;
    TunnelRegistry &m_tunnels;
    QString m_suffix;
    RequestGuard m_guard; // the names served: the suffix itself and "<viewId>.<suffix>"
    mutable QByteArray m_lastHost; // viewIdFromHost()'s last question and answer
    mutable QString m_lastViewId;
};

} // namespace isolation::hub
