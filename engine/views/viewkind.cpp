#include "viewkind.h"

namespace isolation {

QString viewKindName(ViewKind kind)
{
    switch (kind) {
    case ViewKind::Preview:
        return QStringLiteral("preview");
    case ViewKind::Terminal:
        return QStringLiteral("terminal");
    case ViewKind::Files:
        return QStringLiteral("files");
    case ViewKind::Editor:
        return QStringLiteral("editor");
    case ViewKind::Agent:
        return QStringLiteral("agent");
    }
    return {};
}

std::optional<ViewKind> viewKindFromName(QStringView name)
{
    if (name == u"preview")
        return ViewKind::Preview;
    if (name == u"terminal")
        return ViewKind::Terminal;
    if (name == u"files")
        return ViewKind::Files;
    if (name == u"editor")
        return ViewKind::Editor;
    if (name == u"agent")
        return ViewKind::Agent;
    return std::nullopt;
}

} // namespace isolation
