#include "sessiondeclaration.h"

#include "core/base64url.h"
#include "crypto/ed25519.h"

#include <QJsonValue>

namespace isolation {

QByteArray SessionDeclaration::signedMessage(
    const QString &serverId, const QString &sessionId, const QString &workspaceId, qint64 unixSeconds)
{
    // Each id has a charset without a line feed (the hub checks the session id; the others are the
    // hub's own records), so the lines cannot run into each other.
    return "isolation-session-declare-v1\n" + serverId.toUtf8() + '\n' + sessionId.toUtf8() + '\n'
        + workspaceId.toUtf8() + '\n' + QByteArray::number(unixSeconds);
}

Result<QJsonObject> SessionDeclaration::proof(QByteArrayView ed25519Private, const QString &serverId,
    const QString &sessionId, const QString &workspaceId, qint64 unixSeconds)
{
    auto signature = ed25519Sign(ed25519Private, signedMessage(serverId, sessionId, workspaceId, unixSeconds));
    if (!signature)
        return Error::invalidInput(
            QStringLiteral("cannot sign a session declaration: %1").arg(signature.error().message));
    return QJsonObject {{QStringLiteral("timestamp"), unixSeconds},
        {QStringLiteral("signature"), QString::fromLatin1(signature.value().toBase64(kBase64Url))}};
}

Status SessionDeclaration::verify(const QJsonObject &proof, QByteArrayView ed25519Public, const QString &serverId,
    const QString &sessionId, const QString &workspaceId, qint64 now)
{
    if (proof.isEmpty())
        return Error::invalidInput(QStringLiteral("a workspace bearer for session %1 needs a proof signed by this "
                                                  "server's key (\"proof\": {\"timestamp\", \"signature\"})")
                                       .arg(sessionId));
    const QJsonValue time = proof.value(QStringLiteral("timestamp"));
    const QJsonValue signature = proof.value(QStringLiteral("signature"));
    if (!time.isDouble() || !signature.isString())
        return Error::invalidInput(
            QStringLiteral("a session proof is {\"timestamp\": unix seconds, \"signature\": base64url}"));
    const qint64 timestamp = time.toInteger();
    if (qAbs(now - timestamp) > MaxSkewSeconds)
        return Error::invalidInput(
            QStringLiteral("the session proof's time is %1 s off the hub's clock (at most %2 s): is the "
                           "server's clock right?")
                .arg(timestamp - now)
                .arg(MaxSkewSeconds));
    const QByteArray text = signature.toString().toLatin1();
    const auto decoded = QByteArray::fromBase64Encoding(text, kBase64Url | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || !ed25519Verify(ed25519Public, signedMessage(serverId, sessionId, workspaceId, timestamp), *decoded))
        return Error::invalidInput(
            QStringLiteral("the session proof is not signed by this server's key for this session and workspace"));
    return {};
}

} // namespace isolation
