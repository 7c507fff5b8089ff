#include "viewhubrig.h"

#include "pairedserver.h"

#include "crypto/ed25519.h"

#include <QTest>
#include <QUrlQuery>

namespace isolation::test {

ViewHubRig::~ViewHubRig()
{
    if (doorman)
        doorman->close();
    if (tunnel)
        tunnel->stop();
    doorman.reset();
    tunnel.reset();
    hub.stop();
}

bool ViewHubRig::start(ViewTargetResolver *targets, const QString &filesRoot)
{
    if (!m_home.isValid() || !hub.start())
        return false;
    identity = pairServer(hub.appUrl(), m_home.path(), QStringLiteral("views"));
    if (!identity || identity->hubPublicKey.size() != 32) {
        qWarning("pairing with the hub failed");
        return false;
    }
    TunnelClient::Options t;
    t.hub = identity->hubUrl;
    t.serverId = identity->serverId;
    t.credential = identity->credential.toByteArray();
    const SecureBytes key = identity->ed25519Private;
    t.sign = [key](const QByteArray &message) { return ed25519Sign(key.view(), message).value(); };
    tunnel = std::make_unique<TunnelClient>(t, clock);

    Doorman::Options o;
    o.serverId = identity->serverId;
    o.hubPublicKey = identity->hubPublicKey;
    if (!filesRoot.isEmpty())
        o.filesRoot = filesRoot;
    doorman = std::make_unique<Doorman>(o, clock, targets);
    doorman->attach(tunnel.get());
    if (!tunnel->start())
        return false;
    if (!QTest::qWaitFor([this] { return tunnel->state() == TunnelState::Connected; }, 15000)) {
        qWarning("the tunnel did not come up: %s", qPrintable(tunnel->reason()));
        return false;
    }
    return true;
}

QUrl ViewHubRig::mint(const QStringList &args)
{
    QString out;
    QString err;
    const int rc = hub.admin(QStringList {QStringLiteral("view")} + args, &out, &err);
    if (rc != 0) {
        qWarning("isolation-hub view failed (%d): %s", rc, qPrintable(err));
        return {};
    }
    const QUrl url(out.trimmed());
    tokens << QUrlQuery(url).queryItemValue(QStringLiteral("view_token")).toLatin1();
    return url;
}

QByteArray ViewHubRig::hostOf(const QUrl &url)
{
    return url.host().toLatin1() + ':' + QByteArray::number(url.port());
}

RawAnswer ViewHubRig::get(const QUrl &url, const QByteArray &target, const QByteArray &cookie, const QByteArray &extra)
{
    return send(
        url, "GET " + target + " HTTP/1.1", (cookie.isEmpty() ? QByteArray() : "Cookie: " + cookie + "\r\n") + extra);
}

RawAnswer ViewHubRig::send(
    const QUrl &url, const QByteArray &requestLine, const QByteArray &head, const QByteArray &body)
{
    return exchange(previewPort(), requestLine + "\r\nHost: " + hostOf(url) + "\r\n" + head + "\r\n" + body, 30000);
}

QByteArray ViewHubRig::open(const QUrl &url)
{
    const RawAnswer a = get(url, url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority));
    for (const QByteArray &c : a.all("set-cookie")) {
        if (c.startsWith("__Host-isolation_view="))
            return c.left(c.indexOf(';'));
    }
    qWarning("opening a view answered %d", a.status);
    return {};
}

} // namespace isolation::test
