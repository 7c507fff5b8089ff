// Which headers cross the doorman, in each direction. Towards the sandbox: no hop-by-hop header
// nor any the Connection header names, no credential of ours (the view cookie, Authorization,
// the token), no forwarding header from the client; X-Forwarded-For/-Proto/-Host set by us. Back
// to the browser: no hop-by-hop header, no cookie named like ours, Referrer-Policy: no-referrer.
#pragma once

#include "http/httprequest.h"

namespace isolation {

class HeaderPolicy
{
public:
    // The view cookie. "__Host-": a browser keeps such a cookie only when this very host set it
    // with Secure, Path=/ and no Domain, so a page of a neighbouring view (on the local preview
    // origin every view is under preview.localhost, one site) cannot toss one that the browser
    // would send here beside, or instead of, ours.
    static constexpr const char *CookieName = "__Host-isolation_view";
    // A cookie whose name holds this, in any case, is taken for ours however it is spelt (a
    // neighbour's "isolation_view" with Domain=, say): never forwarded, never set by a sandbox.
    static constexpr const char *CookieStem = "isolation_view";

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
    // Whether a page of this very origin made the request: exactly one Sec-Fetch-Site and it is
    // "same-origin" (browsers send it with every request to a secure context, *.localhost
    // included; a form or fetch of another view says same-site, a typed address none).
    static bool fromSameOrigin(const HttpHeaders &headers);
    // Whether the request has exactly one Content-Type and its media type (the parameters left
    // out) is `type`, without case.
    static bool hasMediaType(const HttpHeaders &headers, QByteArrayView type);
    // The headers every answer of the doorman carries.
    static void addStandard(HttpHeaders *headers);
};

} // namespace isolation
