// The programs installed in libexec/isolation/ beside the ones on PATH: the engine program
// (isolation-engine), the keychain helper (isolation-keychain), the pseudo-terminal relay copied
// into sandboxes (isolation-pty-relay). Found from the running program, never through PATH: from
// bin/ (isolation-server, and the tests, built at the same depth) by the relative path from the
// install's bin to libexec/isolation; the engine program, which lives among them, says so.
#pragma once

#include <QString>

namespace isolation::helpers {

// The directory the helper programs are in.
QString directory();
// `name` in that directory ("isolation-keychain").
QString program(const QString &name);
// For a program that is itself in that directory (the engine program): its own directory.
void setDirectory(const QString &directory);

} // namespace isolation::helpers
