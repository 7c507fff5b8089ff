// A view request's target made unambiguous before anything is forwarded: the path decoded once,
// its dot-segments resolved, and encoded again the one way the doorman writes it; the view token
// taken out of the query. Anything that would change the scope (an encoded slash or backslash,
// NUL or another control byte, "..", a malformed escape) is refused.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace isolation {

struct ViewPath
{
    static constexpr const char *TokenParameter = "view_token";

    QByteArray path; // absolute, normalised, percent-encoded: what goes to the sandbox
    QByteArray decodedPath; // the same, decoded (for matching the doorman's own routes)
    QByteArray query; // as sent (encoded), without the view token; empty when none
    QByteArray token; // the view token from the query, when one was there

    // `target` is an origin-form request target ("/a/b?x=1").
    static Result<ViewPath> parse(QByteArrayView target);
    // The path and query again ("/a/b?x=1"), for the upstream request line and redirects.
    QByteArray target() const { return query.isEmpty() ? path : path + '?' + query; }

    // A decoded absolute file path (the files view's `path` parameter) normalised the same way:
    // nullopt when it is not absolute, has control bytes or leaves the root.
    static std::optional<QString> normaliseFilePath(const QString &path);
};

} // namespace isolation
