#include "hubstate.h"

#include "core/base64url.h"
#include "crypto/consttime.h"
#include "crypto/ed25519.h"
#include "crypto/random.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

namespace isolation::hub {

namespace {

QString enc(const QByteArray &b)
{
    return QString::fromLatin1(b.toBase64(kBase64Url));
}

QByteArray dec(const QJsonValue &v)
{
    return QByteArray::fromBase64(v.toString().toLatin1(), kBase64Url);
}

QString newId(const char *prefix)
{
    return QLatin1String(prefix) + QString::fromLatin1(randomBytes(9).toBase64(kBase64Url));
}

} // namespace

HubState::HubState(QString file)
    : m_file(std::move(file))
{ }

QByteArray HubState::credentialHash(QByteArrayView credential)
{
    return QCryptographicHash::hash(credential, QCryptographicHash::Sha256);
}

ServerRecord *HubState::server(const QString &id)
{
    for (ServerRecord &s : m_servers) {
        if (s.id == id)
            return &s;
    }
    return nullptr;
}

ServerRecord *HubState::serverByCredential(QByteArrayView credential)
{
    const QByteArray hash = credentialHash(credential);
    ServerRecord *found = nullptr;
    for (ServerRecord &s : m_servers) {
        if (constantTimeEquals(hash, s.credentialHash))
            found = &s;
    }
    return found;
}

Status HubState::load()
{
    QFile file(m_file);
    if (!file.exists()) {
        m_member = {newId("mem_"), QStringLiteral("Local member"), randomBytes(32)};
        const Ed25519KeyPair key = ed25519Generate();
        m_hubPrivate = key.privateKey.view().toByteArray();
        m_hubPublic = key.publicKey;
        return save();
    }
    if (!file.open(QIODevice::ReadOnly))
        return Error::failed(QStringLiteral("cannot read %1: %2").arg(m_file, file.errorString()));
    QJsonParseError pe {};
    const QJsonObject o = QJsonDocument::fromJson(file.readAll(), &pe).object();
    if (pe.error != QJsonParseError::NoError)
        return Error::failed(QStringLiteral("%1 is corrupt: %2").arg(m_file, pe.errorString()));
    const QJsonObject m = o.value(QStringLiteral("member")).toObject();
    m_member = {m.value(QStringLiteral("id")).toString(), m.value(QStringLiteral("name")).toString(),
        dec(m.value(QStringLiteral("memberKey")))};
    m_hubPrivate = dec(o.value(QStringLiteral("hubPrivateKey")));
    m_hubPublic = dec(o.value(QStringLiteral("hubPublicKey")));
    m_servers.clear();
    for (const QJsonValue &v : o.value(QStringLiteral("servers")).toArray()) {
        const QJsonObject s = v.toObject();
        ServerRecord r;
        r.id = s.value(QStringLiteral("id")).toString();
        r.name = s.value(QStringLiteral("name")).toString();
        r.hostName = s.value(QStringLiteral("hostName")).toString();
        r.memberId = s.value(QStringLiteral("memberId")).toString();
        r.version = s.value(QStringLiteral("version")).toString();
        r.x25519Public = dec(s.value(QStringLiteral("x25519Public")));
        r.ed25519Public = dec(s.value(QStringLiteral("ed25519Public")));
        r.credentialHash = dec(s.value(QStringLiteral("credentialHash")));
        r.createdAt = QDateTime::fromString(s.value(QStringLiteral("createdAt")).toString(), Qt::ISODate);
        r.revoked = s.value(QStringLiteral("revoked")).toBool();
        r.revokedWhy = s.value(QStringLiteral("revokedWhy")).toString();
        r.lastHeartbeat = QDateTime::fromString(s.value(QStringLiteral("lastHeartbeat")).toString(), Qt::ISODateWithMs);
        r.lastReport = s.value(QStringLiteral("lastReport")).toObject();
        m_servers.append(r);
    }
    if (m_member.memberKey.size() != 32 || m_hubPrivate.size() != 32 || m_hubPublic.size() != 32)
        return Error::failed(QStringLiteral("%1 is missing keys").arg(m_file));
    return {};
}

Status HubState::save() const
{
    QJsonArray servers;
    for (const ServerRecord &r : m_servers) {
        servers.append(QJsonObject {
            {QStringLiteral("id"), r.id},
            {QStringLiteral("name"), r.name},
            {QStringLiteral("hostName"), r.hostName},
            {QStringLiteral("memberId"), r.memberId},
            {QStringLiteral("version"), r.version},
            {QStringLiteral("x25519Public"), enc(r.x25519Public)},
            {QStringLiteral("ed25519Public"), enc(r.ed25519Public)},
            {QStringLiteral("credentialHash"), enc(r.credentialHash)},
            {QStringLiteral("createdAt"), r.createdAt.toString(Qt::ISODate)},
            {QStringLiteral("revoked"), r.revoked},
            {QStringLiteral("revokedWhy"), r.revokedWhy},
            {QStringLiteral("lastHeartbeat"), r.lastHeartbeat.toString(Qt::ISODateWithMs)},
            {QStringLiteral("lastReport"), r.lastReport},
        });
    }
    const QJsonObject o {
        {QStringLiteral("version"), 1},
        {QStringLiteral("member"),
            QJsonObject {{QStringLiteral("id"), m_member.id}, {QStringLiteral("name"), m_member.name},
                {QStringLiteral("memberKey"), enc(m_member.memberKey)}}},
        {QStringLiteral("hubPrivateKey"), enc(m_hubPrivate)},
        {QStringLiteral("hubPublicKey"), enc(m_hubPublic)},
        {QStringLiteral("servers"), servers},
    };
    QSaveFile file(m_file);
    if (!file.open(QIODevice::WriteOnly))
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(o).toJson());
    if (!file.commit())
        return Error::failed(QStringLiteral("cannot write %1: %2").arg(m_file, file.errorString()));
    return {};
}

} // namespace isolation::hub
