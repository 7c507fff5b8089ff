#include "execdtoken.h"

#include "crypto/hkdf.h"

namespace isolation {

QByteArray execdAccessToken(QByteArrayView runtimeKey, const QString &sessionId)
{
    if (runtimeKey.isEmpty() || sessionId.isEmpty())
        return {};
    const QByteArray info = QByteArrayLiteral("isolation execd access token v1\0") + sessionId.toUtf8();
    auto key = hkdfSha256(runtimeKey, {}, info, 32);
    if (!key)
        return {}; // only for an info longer than HKDF takes: a session id is far shorter
    return QByteArray(key.value().view().data(), key.value().view().size())
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

} // namespace isolation
