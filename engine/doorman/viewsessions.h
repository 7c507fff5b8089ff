// The doorman's memory of views opened in a browser: a view token, once verified, is exchanged
// for a random cookie value that maps to its claims until the token's expiry. Tokens are single
// use: a nonce seen before is refused until its token would have expired anyway.
#pragma once

#include "views/viewtoken.h"

#include <QHash>

namespace isolation {

class ViewSessions
{
public:
    // Remembers verified claims; returns the cookie value (32 random bytes, base64url), or empty
    // when the token's nonce was used before.
    QByteArray open(const ViewClaims &claims, qint64 nowUnix);
    // The claims a cookie stands for, when it is known and not expired; `viewId` must match.
    const ViewClaims *find(const QByteArray &cookie, const QString &viewId, qint64 nowUnix) const;
    // Forgets everything that expired.
    void purge(qint64 nowUnix);
    // Forgets every cookie of a view (its session ended).
    void closeView(const QString &viewId);
    int size() const { return int(m_cookies.size()); }

private:
    void forgetLast() { m_last = nullptr; }

    QHash<QByteArray, ViewClaims> m_cookies; // cookie value -> claims
    // The last cookie found and its entry: a browser's requests come with one cookie again and
    // again. Cleared by every change to m_cookies (which may move the entries).
    mutable QByteArray m_lastCookie;
    mutable const ViewClaims *m_last = nullptr;
    QHash<QByteArray, qint64> m_nonces; // nonce -> expiry
};

} // namespace isolation
