#include "launchsecrets.h"

#include "crypto/hpke.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace isolation {

namespace {

SecretsError malformed(const QString &why)
{
    return {SecretsError::Code::Malformed, QStringLiteral("launch secrets refused: %1").arg(why)};
}

} // namespace

bool LaunchSecrets::isValidName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,127}$"));
    return pattern.match(name).hasMatch();
}

Result<LaunchSecrets, SecretsError> LaunchSecrets::open(QByteArrayView sealed, QByteArrayView serverPrivate,
    const QString &serverId, const QString &sessionId, qint64 nowUnix)
{
    if (sealed.size() > kMaxSealedBytes)
        return malformed(QStringLiteral("larger than %1 bytes").arg(kMaxSealedBytes));
    if (serverId.isEmpty() || sessionId.isEmpty())
        return malformed(QStringLiteral("no server or session to check them against"));
    auto opened = hpkeOpen(serverPrivate, QByteArrayView(kInfo), serverId.toUtf8(), sealed);
    if (!opened) {
        // Which of tampered / other key / other server cannot be told apart, by design of the AEAD.
        return SecretsError {SecretsError::Code::Unreadable,
            QStringLiteral("launch secrets cannot be opened: tampered, or sealed for another server")};
    }
    // Qt's parser keeps transient copies of the values; they are freed at once, though not zeroed.
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray::fromRawData(opened.value().constData(), opened.value().size()), &parseError);
    if (!doc.isObject())
        return malformed(QStringLiteral("the plaintext is not a JSON object"));
    const QJsonObject root = doc.object();
    const QJsonValue session = root.value(QStringLiteral("sessionId"));
    const QJsonValue expires = root.value(QStringLiteral("expiresAt"));
    const QJsonValue secrets = root.value(QStringLiteral("secrets"));
    if (!session.isString() || session.toString().isEmpty())
        return malformed(QStringLiteral("sessionId is missing"));
    if (!expires.isDouble() || expires.toDouble() != double(qint64(expires.toDouble())))
        return malformed(QStringLiteral("expiresAt is not an integer"));
    if (!secrets.isObject())
        return malformed(QStringLiteral("secrets is not an object"));
    if (session.toString() != sessionId) {
        return SecretsError {SecretsError::Code::WrongSession,
            QStringLiteral("launch secrets were sealed for session %1, not %2").arg(session.toString(), sessionId)};
    }
    const qint64 expiresAt = qint64(expires.toDouble());
    if (nowUnix >= expiresAt) {
        return SecretsError {
            SecretsError::Code::Expired, QStringLiteral("launch secrets expired %1 s ago").arg(nowUnix - expiresAt)};
    }
    const QJsonObject map = secrets.toObject();
    if (map.size() > kMaxSecrets)
        return malformed(QStringLiteral("more than %1 secrets").arg(kMaxSecrets));

    LaunchSecrets out;
    out.m_sessionId = sessionId;
    out.m_expiresAt = expiresAt;
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (!isValidName(it.key()))
            return malformed(QStringLiteral("%1 is not a valid secret name").arg(it.key().left(64)));
        if (!it.value().isString())
            return malformed(QStringLiteral("the value of %1 is not a string").arg(it.key()));
        QByteArray value = it.value().toString().toUtf8();
        const QString why = value.contains('\0') ? QStringLiteral("holds a NUL byte")
            : value.size() < kMinValueBytes      ? QStringLiteral("is shorter than %1 bytes").arg(kMinValueBytes)
            : value.size() > kMaxValueBytes      ? QStringLiteral("is longer than %1 bytes").arg(kMaxValueBytes)
                                                 : QString();
        SecureBytes kept(value);
        value.fill('\0'); // the only reference to this buffer: zeroed in place
        if (!why.isEmpty())
            return malformed(QStringLiteral("the value of %1 %2").arg(it.key(), why));
        out.m_values.emplace(it.key(), std::move(kept));
    }
    return out;
}

} // namespace isolation
