// A real isolation-hub, an engine paired with it, its tunnel up and a doorman on that tunnel (and
// on a local door), for view tests that go the whole way: browser -> hub preview origin ->
// tunnel -> doorman -> sandbox. The resolver (session -> execd) is the test's.
#pragma once

#include "doormanfixture.h"
#include "hubprocess.h"

#include "doorman/doorman.h"
#include "pairing/serveridentity.h"
#include "tunnel/tunnelclient.h"

#include <QTemporaryDir>
#include <QUrl>

#include <memory>
#include <optional>

namespace isolation::test {

class ViewHubRig
{
public:
    ~ViewHubRig();
    // Starts the hub, pairs, connects the tunnel and the doorman; false (and a warning) on failure.
    // `filesRoot`: the files view's root and the terminal's working directory in the sandbox.
    bool start(ViewTargetResolver *targets, const QString &filesRoot = {});

    // `isolation-hub view SESSION args...`: the URL it printed (invalid on failure).
    QUrl mint(const QStringList &args);
    // GET on the hub's preview port with the Host a browser would send for `url`.
    RawAnswer get(
        const QUrl &url, const QByteArray &target, const QByteArray &cookie = {}, const QByteArray &extra = {});
    // Any request on the hub's preview port for `url`'s view: `head` is the request line and
    // headers after Host (each ending in CRLF), `body` follows the blank line.
    RawAnswer send(const QUrl &url, const QByteArray &requestLine, const QByteArray &head, const QByteArray &body = {});
    // Opens `url` (with its token): the cookie it set ("__Host-isolation_view=..."), empty on failure.
    QByteArray open(const QUrl &url);
    static QByteArray hostOf(const QUrl &url);
    quint16 previewPort() const { return quint16(hub.previewUrl().port()); }

    SystemClock clock;
    HubProcess hub;
    std::optional<ServerIdentity> identity;
    std::unique_ptr<TunnelClient> tunnel;
    std::unique_ptr<Doorman> doorman;
    QList<QByteArray> tokens; // every token minted, to look for in logs

private:
    QTemporaryDir m_home;
};

} // namespace isolation::test
