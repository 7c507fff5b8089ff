// What a view shows: a port of the sandbox (preview), a terminal, the files, the code editor, or the agent. The kind is a
// claim of the view token, so a token for one kind never opens another.
#pragma once

#include <QString>

#include <optional>

namespace isolation {

enum class ViewKind {
    Preview, // any port of the sandbox, through execd's /proxy/{port}/
    Terminal, // a shell session in the sandbox (execd /session/*), served by a terminal page
    Files, // browse, download and upload under /workspace (execd /files/*, /directories/list)
    Editor, // open, edit and save files under /workspace in a code editor page (the files view's routes)
    Agent, // the session's agent conversation: its output, state and restarts, and input to it (from the engine)
};

QString viewKindName(ViewKind kind);
std::optional<ViewKind> viewKindFromName(QStringView name);

} // namespace isolation
