// The access token of one sandbox's execd (X-EXECD-ACCESS-TOKEN). Derived, never stored: HKDF-SHA256
// of the runtime's API key (kept in the credential store) with the session id, so the engine mints it
// before the sandbox exists and finds it again after a restart to adopt that sandbox. Per session:
// one sandbox's token opens no other. See docs/runtime.md, "execd's access token".
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace isolation {

// 32 bytes, base64url without padding (43 characters). Empty when `runtimeKey` or `sessionId` is
// empty: there is nothing secret to derive from, and callers must refuse to launch.
QByteArray execdAccessToken(QByteArrayView runtimeKey, const QString &sessionId);

} // namespace isolation
