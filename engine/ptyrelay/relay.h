/* The PTY relay's loop: one thread, poll(), many WebSockets, each with a shell on a terminal of
 * its own (docs/protocol.md, "The PTY relay"). */
#ifndef ISOLATION_PTYRELAY_RELAY_H
#define ISOLATION_PTYRELAY_RELAY_H

#include "shell.h"

#include <stddef.h>

struct relay_options {
    struct shell_options shell;
    long idle_exit_seconds; /* no connection for this long: the relay ends */
    const char *secret;     /* what X-Isolation-Relay-Secret must hold */
    size_t secret_length;
};

/* Serves the listening socket until idle; returns the exit status. */
int relay_serve(int listener, const struct relay_options *o);

#endif
