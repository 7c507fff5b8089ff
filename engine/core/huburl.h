// HubUrl: the one rule for every URL the engine sends a hub request to (pairing, heartbeat, hub
// API, workspace store, tunnel), whether the member typed it (settings, ISOLATION_HUB_URL,
// `isolation-server pair --hub`) or the hub handed it over: https:// (wss:// for the tunnel), or
// plain http:// (ws://) only to this computer. Nothing is resolved to decide: loopback means a
// literal 127.0.0.0/8 or ::1 address, or the name `localhost`.
#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QUrl>

namespace isolation {

class HubUrl
{
    Q_DECLARE_TR_FUNCTIONS(HubUrl)

public:
    // The URL when a hub may be reached there; else an InvalidInput error that says why and what
    // to use instead ("refusing hub http://example.com: a hub must be https:// or on this
    // computer (127.0.0.1, ::1, localhost); use https://example.com").
    static Result<QUrl, Error> check(const QUrl &url);

    // True for `localhost` and literal loopback addresses (127.0.0.0/8, ::1); never resolves a name.
    static bool isLoopbackHost(const QString &host);
};

} // namespace isolation
