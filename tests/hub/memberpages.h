// The member's pages on the local hub (pairing, sessions, views) share one sign-in: a cookie
// (HttpOnly, SameSite=Strict) tied to a CSRF token that every form carries back, and forms are
// taken only from the hub's own origin (Origin / Sec-Fetch-Site). On loopback the hub signs its
// one member in on the first visit; listening elsewhere, only the sign-in token printed at first
// start does (issue 20: never an automatic sign-in for whoever can reach the port).
#pragma once

#include "core/result.h"
#include "http/httpserver.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QUrlQuery>

namespace isolation::hub {

class MemberPages
{
public:
    // Sign-in by token from now on, its SHA-256 kept in `file` (mode 0600). Returns the token when
    // it was made now (the caller prints it once), empty when `file` already held one.
    Result<QByteArray> requireSignIn(const QString &file);
    bool signInRequired() const { return !m_tokenHash.isEmpty(); }
    // Whether the request carries a signed-in page session's cookie.
    bool signedIn(const HttpRequest &request) const;
    // GET and POST /signin (the form the member types the token into).
    void registerRoutes(HttpServer &app);
    // The sign-in page, for a request that needs a sign-in and has none.
    static HttpResponse signInPage(int status, const QString &next, const QString &message = {});

    // The CSRF token of the request's page session; a new session (its cookie set on `response`)
    // when the request has none and the hub signs in automatically, else empty.
    QByteArray begin(const HttpRequest &request, HttpResponse &response);
    // Whether a posted form comes from this origin's own page and carries the CSRF token of the
    // request's page session.
    bool check(const HttpRequest &request, const QUrlQuery &form) const;

    // A whole page: `title` (escaped here) as title and heading, `body` as given (escape what you
    // put in it), `style` added to the shared style sheet.
    static QString html(const QString &title, const QString &body, const QString &style = {});
    // An HTML answer with the pages' headers: no-store, a CSP allowing only inline style and forms
    // to this origin (and to `formTargets`, CSP sources a form's redirect may lead to), no framing.
    static HttpResponse page(int status, const QString &html, const QByteArray &formTargets = {});

private:
    QByteArray newSession(HttpResponse &response);
    void signInPost(const HttpRequest &request, HttpReply reply);

    QHash<QByteArray, QByteArray> m_sessions; // member cookie -> CSRF token
    QByteArray m_tokenHash; // SHA-256 of the sign-in token; empty: automatic sign-in (loopback)
};

} // namespace isolation::hub
