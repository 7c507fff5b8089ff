/* The PTY relay's shells: a login shell on a new pseudo-terminal, and signals to its session. */
#ifndef ISOLATION_PTYRELAY_SHELL_H
#define ISOLATION_PTYRELAY_SHELL_H

#include <stdint.h>
#include <sys/types.h>

struct shell_options {
    const char *cwd;   /* where the shell starts; "/" when it cannot */
    const char *shell; /* --shell, or NULL: $SHELL if executable, else /bin/bash, else /bin/sh */
};

/* Starts the shell on a new pseudo-terminal of that size; returns its pid (the leader of a new
 * session) and the master side in *master (non-blocking, close-on-exec), or -1. */
pid_t shell_start(const struct shell_options *o, uint16_t cols, uint16_t rows, int *master);

/* Sends sig to the session sid leads: its process group, and every process /proc lists in it (a
 * job-control shell puts each job in a group of its own). */
void shell_signal_session(pid_t sid, int sig);

#endif
