// The hub's durable state: the local member (with the member key the local hub plays the member
// with), the server registry, and the hub's own Ed25519 key. One JSON file, replaced atomically.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace isolation::hub {

struct MemberRecord
{
    QString id;
    QString name;
    QByteArray memberKey; // 32 bytes
};

struct ServerRecord
{
    QString id;
    QString name;
    QString hostName;
    QString memberId;
    QString version;
    QByteArray x25519Public;
    QByteArray ed25519Public;
    QByteArray credentialHash; // SHA-256 of the credential; the credential itself is never kept
    QDateTime createdAt;
    bool revoked = false;
    QString revokedWhy;
    QDateTime lastHeartbeat;
    QJsonObject lastReport;
};

class HubState
{
public:
    explicit HubState(QString file);

    // Reads the file, or starts fresh (new member, new member key, new hub key) when there is none.
    Status load();
    Status save() const;

    MemberRecord &member() { return m_member; }
    QList<ServerRecord> &servers() { return m_servers; }
    ServerRecord *server(const QString &id);
    // The server whose credential this is (constant-time over every record), or null.
    ServerRecord *serverByCredential(QByteArrayView credential);

    QByteArray hubPrivateKey() const { return m_hubPrivate; }
    QByteArray hubPublicKey() const { return m_hubPublic; }

    static QByteArray credentialHash(QByteArrayView credential);

private:
    QString m_file;
    MemberRecord m_member;
    QList<ServerRecord> m_servers;
    QByteArray m_hubPrivate;
    QByteArray m_hubPublic;
};

} // namespace isolation::hub
