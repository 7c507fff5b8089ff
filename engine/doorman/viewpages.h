// The pages the doorman serves itself for the views that are not a sandbox port: the terminal
// (xterm.js, fetched from npm at build time) and the file browser. Compiled into the engine.
#pragma once

#include "http/httprequest.h"
#include "views/viewkind.h"

#include <optional>

namespace isolation {

class ViewPages
{
public:
    // The page or asset at `decodedPath` of a view of `kind`, for GET and HEAD; nullopt when the
    // path is not one of them (the view's API routes, or nothing).
    static std::optional<HttpResponse> answer(ViewKind kind, const QByteArray &method, const QByteArray &decodedPath);
};

} // namespace isolation
