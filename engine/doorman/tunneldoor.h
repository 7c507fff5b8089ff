// The doorman's tunnel front door: the hub's streams to `/v/<viewId>/...` (HTTP/2 over the
// tunnel, nghttp2 underneath), WebSockets as extended CONNECT (RFC 8441). The hub is a trusted
// hop: the X-Forwarded-* headers it sets say how the browser reached the view.
#pragma once

#include "viewexchange.h"

#include <QObject>

namespace isolation {

class Doorman;
class TunnelStream;

class TunnelDoor final : public QObject
{
    Q_OBJECT
public:
    TunnelDoor(Doorman *doorman, QObject *parent = nullptr);
    void serve(TunnelStream *stream);

private:
    void start(TunnelStream *stream);

    Doorman *m_doorman;
    ViewExchanges m_exchanges;
};

} // namespace isolation
