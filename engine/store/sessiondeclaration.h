// The proof a server sends with every workspace bearer request (docs/protocol.md, "Workspace
// bearers"): an Ed25519 signature by the server's own key over the server, the session, the
// workspace and the time. The hub mints no bearer without it, and learns of a session it did not
// launch only with it, so a leaked server credential alone gets nothing.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

namespace isolation {

class SessionDeclaration
{
public:
    // How far the proof's time may be from the hub's clock, either way.
    static constexpr qint64 MaxSkewSeconds = 300;

    // "isolation-session-declare-v1\n<server id>\n<session id>\n<workspace id>\n<unix seconds>"
    static QByteArray signedMessage(
        const QString &serverId, const QString &sessionId, const QString &workspaceId, qint64 unixSeconds);

    // The request's "proof": {"timestamp": <unix seconds>, "signature": <base64url, no padding>},
    // signed with the server's 32-byte Ed25519 seed. InvalidInput for a key of another size.
    static Result<QJsonObject> proof(QByteArrayView ed25519Private, const QString &serverId, const QString &sessionId,
        const QString &workspaceId, qint64 unixSeconds);

    // Does `proof` (the request's "proof" object) show that the server whose Ed25519 public key is
    // `ed25519Public` uses (or declares) this session on this workspace, with a time within MaxSkewSeconds
    // of `now`? Else InvalidInput with a reason fit to send back (it never quotes the signature).
    static Status verify(const QJsonObject &proof, QByteArrayView ed25519Public, const QString &serverId,
        const QString &sessionId, const QString &workspaceId, qint64 now);
};

} // namespace isolation
