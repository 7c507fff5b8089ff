// `isolation-server up` and `isolation-server bugreport` run in the engine program
// (isolation-engine, in libexec/isolation/, core/helperprograms.h): it carries libgit2, OpenSSL,
// nghttp2 and tcmalloc, which every other verb, a LocalAPI client, starts faster without
// (docs/architecture.md, "Programs"). The CLI hands such a verb over with exec: the same process
// (pid, standard streams, signals, environment) goes on as the engine program.
#pragma once

#include <QStringList>

namespace isolation {

// Never returns but on failure: then it says why and returns exitcode::Failure.
int handOverToEngine(const QStringList &arguments);

} // namespace isolation
