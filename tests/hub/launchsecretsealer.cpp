#include "launchsecretsealer.h"

#include "crypto/hpke.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace isolation::hub {

CryptoResult<QByteArray> LaunchSecretSealer::seal(QByteArrayView serverX25519Public, const QString &serverId,
    const QString &sessionId, qint64 expiresAt, const QMap<QString, QByteArray> &secrets)
{
    QJsonObject values;
    for (auto it = secrets.begin(); it != secrets.end(); ++it)
        values.insert(it.key(), QString::fromUtf8(it.value()));
    QByteArray plaintext = QJsonDocument(
        QJsonObject {{QStringLiteral("sessionId"), sessionId}, {QStringLiteral("expiresAt"), expiresAt},
            {QStringLiteral("secrets"),
                values}}).toJson(QJsonDocument::Compact);
    auto sealed = sealPlaintext(serverX25519Public, serverId, plaintext);
    plaintext.fill('\0');
    return sealed;
}

CryptoResult<QByteArray> LaunchSecretSealer::sealPlaintext(
    QByteArrayView serverX25519Public, const QString &serverId, QByteArrayView plaintext)
{
    return hpkeSeal(serverX25519Public, QByteArrayView(kInfo), serverId.toUtf8(), plaintext);
}

} // namespace isolation::hub
