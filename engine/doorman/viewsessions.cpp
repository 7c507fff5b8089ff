#include "viewsessions.h"

#include "crypto/consttime.h"
#include "crypto/random.h"

namespace isolation {

QByteArray ViewSessions::open(const ViewClaims &claims, qint64 nowUnix)
{
    purge(nowUnix);
    if (m_nonces.use(claims, nowUnix) != UsedNonces::Use::Fresh)
        return {};
    forgetLast();
    const QByteArray cookie = randomBytes(32).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    m_cookies.insert(cookie, claims);
    return cookie;
}

const ViewClaims *ViewSessions::find(const QByteArray &cookie, const QString &viewId, qint64 nowUnix) const
{
    if (cookie.isEmpty())
        return nullptr;
    // A hash lookup on a 256-bit random value: its timing says nothing useful about other values;
    // the comparison with the last one found takes the same time however many bytes match.
    const ViewClaims *claims = nullptr;
    if (m_last && constantTimeEquals(cookie, m_lastCookie)) {
        claims = m_last;
    } else {
        auto it = m_cookies.constFind(cookie);
        if (it == m_cookies.constEnd())
            return nullptr;
        m_lastCookie = it.key();
        m_last = claims = &*it;
    }
    if (claims->viewId != viewId || nowUnix >= claims->expiresAt)
        return nullptr;
    return claims;
}

void ViewSessions::purge(qint64 nowUnix)
{
    forgetLast();
    for (auto it = m_cookies.begin(); it != m_cookies.end();)
        it = nowUnix >= it->expiresAt ? m_cookies.erase(it) : std::next(it);
    m_nonces.purge(nowUnix);
}

} // namespace isolation
