// What pairing gives a server: its id and credential, its own X25519 and Ed25519 key pairs, the
// hub's Ed25519 public key and the member key. Lives only in the credential store and in memory.
#pragma once

#include "core/result.h"
#include "crypto/securebytes.h"

#include <QString>
#include <QUrl>

namespace isolation {

struct ServerIdentity
{
    QUrl hubUrl;
    QString serverId;
    QString memberId;
    QString name;
    SecureBytes credential; // the bearer for the hub's API and the tunnel
    SecureBytes x25519Private; // things sealed to this server (member key, launch secrets)
    QByteArray x25519Public;
    SecureBytes ed25519Private; // signs the tunnel handshake and session declarations
    QByteArray ed25519Public;
    QByteArray hubPublicKey; // Ed25519: verifies view tokens
    SecureBytes memberKey; // derives workspace keys

    bool isComplete() const;

    // The serialised form kept in the credential store (JSON; every binary field base64url).
    SecureBytes toBlob() const;
    static Result<ServerIdentity> fromBlob(QByteArrayView blob);
};

} // namespace isolation
