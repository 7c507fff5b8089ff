// OpenSSL's life in a process: initialised once, first thing in main(), and never torn down.
#pragma once

namespace isolation {

// Initialises OpenSSL without its exit handler. By default OPENSSL_cleanup() runs among the
// process's exit handlers and deletes the thread-local keys that free each thread's OpenSSL state
// (error queue, DRBGs, fetched names) when the thread ends; a worker thread that used OpenSSL and
// is joined after that point (a pool torn down by a static destructor, a thread still finishing
// its task) then loses that state: 6.7 KB per thread, reported by LeakSanitizer at the engine's
// exit under load. Without the exit handler the keys live as long as the process, every thread
// frees its own state when it ends, and the global state is released by the process's end.
// Call it before anything else may touch OpenSSL (Qt's TLS backend included). Returns false
// when OpenSSL could not be initialised; later OpenSSL calls then fail with their own errors.
bool initOpenSslForProcess();

} // namespace isolation
