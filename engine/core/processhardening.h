// Process hardening: keeps the memory of a process that holds secrets (the engine, the keychain
// helper) out of core dumps and away from other processes of the same user.
#pragma once

#include "result.h"

namespace isolation {

// Makes this process non-dumpable (prctl PR_SET_DUMPABLE 0: no core file, no ptrace attach by
// the same user, /proc/<pid>/ entries owned by root) and caps RLIMIT_CORE at 1 byte for it and
// every child it starts. Call it first thing in main(), before any secret is read. Fails with
// what could not be done; the process may go on (nothing else depends on it), but should say so.
//
// Why 1 and not 0: when /proc/sys/kernel/core_pattern pipes to a handler (systemd-coredump,
// apport) the kernel ignores a limit of 0 and dumps anyway; 1 is the value it reads as "no core"
// for a pipe, and for a file it is smaller than the smallest core the kernel writes (one page).
// Children (git, docker, the keychain helper) keep the limit; PR_SET_DUMPABLE is reset at exec,
// so a program that holds secrets of its own calls this itself.
Status hardenProcess();

} // namespace isolation
