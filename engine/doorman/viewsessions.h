// The doorman's memory of views opened in a browser: a view token, once verified, is exchanged
// for a random cookie value that maps to its claims until the token's expiry. Tokens are single
// use: a nonce seen before is refused until its token would have expired anyway (UsedNonces).
#pragma once

#include "usednonces.h"
#include "views/viewtoken.h"

#include <QHash>

namespace isolation {

class ViewSessions
{
public:
    // Remembers verified claims; returns the cookie value (32 random bytes, base64url), or empty
    // when the token's nonce was used before, cannot be recorded, or may have been used before a
    // record of used nonces was lost (UsedNonces::Use; the log says which).
    QByteArray open(const ViewClaims &claims, qint64 nowUnix);
    // Keeps the used nonces in `file` from now on, so a token stays used across restarts of the
    // engine (UsedNonces::keepIn(); a failure is for the log, the safe rule holds either way).
    Status keepUsedNoncesIn(const QString &file, qint64 nowUnix) { return m_nonces.keepIn(file, nowUnix); }
    // The claims a cookie stands for, when it is known and not expired; `viewId` must match.
    const ViewClaims *find(const QByteArray &cookie, const QString &viewId, qint64 nowUnix) const;
    // Forgets everything that expired.
    void purge(qint64 nowUnix);
    int size() const { return int(m_cookies.size()); }

private:
    void forgetLast() { m_last = nullptr; }

    QHash<QByteArray, ViewClaims> m_cookies; // cookie value -> claims
    // The last cookie found and its entry: a browser's requests come with one cookie again and
    // again. Cleared by every change to m_cookies (which may move the entries).
    mutable QByteArray m_lastCookie;
    mutable const ViewClaims *m_last = nullptr;
    UsedNonces m_nonces;
};

} // namespace isolation
