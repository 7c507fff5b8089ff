// The member's pages on the local hub (pairing, sessions) share one sign-in: the local hub signs
// its one member in on the first visit with a cookie (HttpOnly, SameSite=Strict) tied to a CSRF
// token that every form carries back.
#pragma once

#include "http/httpserver.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QUrlQuery>

namespace isolation::hub {

class MemberPages
{
public:
    // The CSRF token of the request's page session; a new session (its cookie set on `response`)
    // when the request has none.
    QByteArray begin(const HttpRequest &request, HttpResponse &response);
    // Whether a posted form carries the CSRF token of the request's page session.
    bool check(const HttpRequest &request, const QUrlQuery &form) const;

    // A whole page: `title` (escaped here) as title and heading, `body` as given (escape what you
    // put in it), `style` added to the shared style sheet.
    static QString html(const QString &title, const QString &body, const QString &style = {});
    // An HTML answer with the pages' headers: no-store, a CSP allowing only inline style and forms
    // to this origin (and to `formTargets`, CSP sources a form's redirect may lead to), no framing.
    static HttpResponse page(int status, const QString &html, const QByteArray &formTargets = {});

private:
    QHash<QByteArray, QByteArray> m_sessions; // member cookie -> CSRF token
};

} // namespace isolation::hub
