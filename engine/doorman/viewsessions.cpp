#include "viewsessions.h"

#include "crypto/random.h"

namespace isolation {

QByteArray ViewSessions::open(const ViewClaims &claims, qint64 nowUnix)
{
    purge(nowUnix);
    if (m_nonces.contains(claims.nonce))
        return {};
    m_nonces.insert(claims.nonce, claims.expiresAt);
    const QByteArray cookie = randomBytes(32).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    m_cookies.insert(cookie, claims);
    return cookie;
}

const ViewClaims *ViewSessions::find(const QByteArray &cookie, const QString &viewId, qint64 nowUnix) const
{
    if (cookie.isEmpty())
        return nullptr;
    // A hash lookup on a 256-bit random value: its timing says nothing useful about other values.
    auto it = m_cookies.constFind(cookie);
    if (it == m_cookies.constEnd() || it->viewId != viewId || nowUnix >= it->expiresAt)
        return nullptr;
    return &*it;
}

void ViewSessions::purge(qint64 nowUnix)
{
    for (auto it = m_cookies.begin(); it != m_cookies.end();)
        it = nowUnix >= it->expiresAt ? m_cookies.erase(it) : std::next(it);
    for (auto it = m_nonces.begin(); it != m_nonces.end();)
        it = nowUnix >= it.value() ? m_nonces.erase(it) : std::next(it);
}

void ViewSessions::closeView(const QString &viewId)
{
    for (auto it = m_cookies.begin(); it != m_cookies.end();)
        it = it->viewId == viewId ? m_cookies.erase(it) : std::next(it);
}

} // namespace isolation
