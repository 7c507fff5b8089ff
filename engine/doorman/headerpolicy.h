// Which headers cross the doorman, in each direction. Towards the sandbox: no hop-by-hop header
// nor any the Connection header names, no credential of ours (the view cookie, Authorization,
// the token), no forwarding header from the client; X-Forwarded-For/-Proto/-Host set by us. Back
// to the browser: no hop-by-hop header, no cookie named like ours, Referrer-Policy: no-referrer.
#pragma once

#include "http/httpmessage.h"

namespace isolation {

class HeaderPolicy
{
public:
    static constexpr const char *CookieName = "isolation_view";

    struct Forwarding
    {
        QByteArray clientAddress; // X-Forwarded-For
        QByteArray proto; // X-Forwarded-Proto: "http" or "https"
        QByteArray host; // X-Forwarded-Host: the view's host as the browser wrote it
        QByteArray upstreamHost; // Host towards execd
        QByteArray execdToken; // X-EXECD-ACCESS-TOKEN
        QByteArray viewCookie; // this request's view cookie value: no header carrying it goes on
    };

    static bool isHopByHop(QByteArrayView name);
    // Headers to the sandbox. `keepUpgrade` keeps Upgrade/Connection/Sec-WebSocket-* for a
    // WebSocket handshake the doorman writes itself (it adds them).
    static HttpHeaders towardsSandbox(const HttpHeaders &in, const Forwarding &f);
    // Headers back to the browser (framing headers are the server's to write): views of `in`'s
    // bytes and of static ones.
    static HeaderFields towardsBrowser(const HeaderFields &in);
    static HttpHeaders towardsBrowser(const HttpHeaders &in);
    // The Cookie header without the view cookie (any pair named like it or carrying `viewCookie`,
    // this request's value); empty when nothing else is left.
    static QByteArray cookieWithoutView(const QByteArray &cookie, const QByteArray &viewCookie = {});
    // The view cookie's value from a Cookie header (a view of `headers`), or empty (more than
    // one: empty).
    static QByteArrayView viewCookie(const HttpHeaders &headers);
    // Whether a header value carries a view token: a URL with "view_token=" (a Referer, say) or
    // anything shaped like a token (base64url claims, ".", base64url signature) that decodes as one.
    static bool carriesToken(QByteArrayView value);
    // The headers every answer of the doorman carries.
    static void addStandard(HttpHeaders *headers);
};

} // namespace isolation
