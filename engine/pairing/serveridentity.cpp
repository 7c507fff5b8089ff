#include "serveridentity.h"

#include "core/base64url.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace isolation {

namespace {

QString b64(QByteArrayView bytes)
{
    return QString::fromLatin1(bytes.toByteArray().toBase64(kBase64Url));
}

QByteArray unb64(const QJsonObject &o, const char *key)
{
    const auto r = QByteArray::fromBase64Encoding(
        o.value(QLatin1String(key)).toString().toLatin1(), kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
    return r ? *r : QByteArray();
}

} // namespace

bool ServerIdentity::isComplete() const
{
    return hubUrl.isValid() && !serverId.isEmpty() && !credential.isEmpty() && x25519Private.size() == 32
        && x25519Public.size() == 32 && ed25519Private.size() == 32 && ed25519Public.size() == 32
        && hubPublicKey.size() == 32 && memberKey.size() == 32;
}

SecureBytes ServerIdentity::toBlob() const
{
    const QJsonObject o {
        {QStringLiteral("v"), 1},
        {QStringLiteral("hub"), hubUrl.toString()},
        {QStringLiteral("serverId"), serverId},
        {QStringLiteral("memberId"), memberId},
        {QStringLiteral("name"), name},
        {QStringLiteral("credential"), b64(credential.view())},
        {QStringLiteral("x25519Private"), b64(x25519Private.view())},
        {QStringLiteral("x25519Public"), b64(x25519Public)},
        {QStringLiteral("ed25519Private"), b64(ed25519Private.view())},
        {QStringLiteral("ed25519Public"), b64(ed25519Public)},
        {QStringLiteral("hubPublicKey"), b64(hubPublicKey)},
        {QStringLiteral("memberKey"), b64(memberKey.view())},
    };
    QByteArray json = QJsonDocument(o).toJson(QJsonDocument::Compact);
    SecureBytes blob(json);
    json.fill('\0');
    return blob;
}

Result<ServerIdentity> ServerIdentity::fromBlob(QByteArrayView blob)
{
    QJsonParseError pe {};
    const QJsonDocument doc = QJsonDocument::fromJson(blob.toByteArray(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return Error::invalidInput(QStringLiteral("the stored credentials are not readable"));
    const QJsonObject o = doc.object();
    if (o.value(QStringLiteral("v")).toInt() != 1)
        return Error::invalidInput(QStringLiteral("the stored credentials have an unknown format version"));
    ServerIdentity id;
    id.hubUrl = QUrl(o.value(QStringLiteral("hub")).toString());
    id.serverId = o.value(QStringLiteral("serverId")).toString();
    id.memberId = o.value(QStringLiteral("memberId")).toString();
    id.name = o.value(QStringLiteral("name")).toString();
    id.credential = SecureBytes(unb64(o, "credential"));
    id.x25519Private = SecureBytes(unb64(o, "x25519Private"));
    id.x25519Public = unb64(o, "x25519Public");
    id.ed25519Private = SecureBytes(unb64(o, "ed25519Private"));
    id.ed25519Public = unb64(o, "ed25519Public");
    id.hubPublicKey = unb64(o, "hubPublicKey");
    id.memberKey = SecureBytes(unb64(o, "memberKey"));
    if (!id.isComplete())
        return Error::invalidInput(QStringLiteral("the stored credentials are incomplete"));
    return id;
}

} // namespace isolation
