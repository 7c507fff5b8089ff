#include "viewpages.h"

#include <QFile>
#include <QRegularExpression>

namespace isolation {

namespace {

struct Asset
{
    const char *path;
    const char *resource;
    const char *type;
};

constexpr Asset kTerminal[] = {
    {"/", ":/isolation/views/terminal.html", "text/html; charset=utf-8"},
    {"/_view/assets/terminal.js", ":/isolation/views/terminal.js", "text/javascript; charset=utf-8"},
    {"/_view/assets/xterm.js", ":/isolation/views/lib/xterm.js", "text/javascript; charset=utf-8"},
    {"/_view/assets/xterm.css", ":/isolation/views/css/xterm.css", "text/css; charset=utf-8"},
    {"/_view/assets/view.css", ":/isolation/views/view.css", "text/css; charset=utf-8"},
};
constexpr Asset kEditor[] = {
    {"/", ":/isolation/views/editor.html", "text/html; charset=utf-8"},
    {"/_view/assets/editor.js", ":/isolation/views/editor.js", "text/javascript; charset=utf-8"},
    {"/_view/assets/view.css", ":/isolation/views/view.css", "text/css; charset=utf-8"},
};
constexpr Asset kAgent[] = {
    {"/", ":/isolation/views/agent.html", "text/html; charset=utf-8"},
    {"/_view/assets/agent.js", ":/isolation/views/agent.js", "text/javascript; charset=utf-8"},
    {"/_view/assets/view.css", ":/isolation/views/view.css", "text/css; charset=utf-8"},
};
constexpr Asset kFiles[] = {
    {"/", ":/isolation/views/files.html", "text/html; charset=utf-8"},
    {"/_view/assets/files.js", ":/isolation/views/files.js", "text/javascript; charset=utf-8"},
    {"/_view/assets/view.css", ":/isolation/views/view.css", "text/css; charset=utf-8"},
};

} // namespace

std::optional<HttpResponse> ViewPages::answer(ViewKind kind, const QByteArray &method, const QByteArray &decodedPath)
{
    if (method != "GET" && method != "HEAD")
        return std::nullopt;
    const auto find = [&](const auto &table) -> const Asset * {
        for (const Asset &a : table) {
            if (decodedPath == a.path)
                return &a;
        }
        return nullptr;
    };
    const Asset *asset = kind == ViewKind::Terminal ? find(kTerminal)
        : kind == ViewKind::Files                   ? find(kFiles)
        : kind == ViewKind::Editor                  ? find(kEditor)
        : kind == ViewKind::Agent                   ? find(kAgent)
                                                    : nullptr;
    QString resource = asset ? QString::fromLatin1(asset->resource) : QString();
    const char *type = asset ? asset->type : "text/javascript; charset=utf-8";
    // Ace's own files (the editor, its modes and themes, loaded by name as the page needs them):
    // a plain name of a file compiled in, nothing else.
    static const QByteArray acePrefix = "/_view/assets/ace/";
    if (!asset && kind == ViewKind::Editor && decodedPath.startsWith(acePrefix)) {
        const QByteArray name = decodedPath.mid(acePrefix.size());
        static const QRegularExpression plain(QStringLiteral("^[a-z_-]{1,40}\\.js$"));
        if (plain.match(QString::fromLatin1(name)).hasMatch()
            && QFile::exists(QStringLiteral(":/isolation/views/ace/") + QString::fromLatin1(name)))
            resource = QStringLiteral(":/isolation/views/ace/") + QString::fromLatin1(name);
    }
    if (resource.isEmpty())
        return std::nullopt;
    QFile f(resource);
    if (!f.open(QIODevice::ReadOnly))
        return HttpResponse::error(500, QStringLiteral("internal"), QStringLiteral("a view page is missing"));
    HttpResponse r = HttpResponse::text(200, f.readAll(), type);
    r.setHeader("Content-Security-Policy",
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
    r.setHeader("X-Content-Type-Options", "nosniff");
    r.setHeader("Cache-Control", "no-cache");
    return r;
}

} // namespace isolation
