#include "shell.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *choose_shell(const struct shell_options *o)
{
    if (o->shell)
        return o->shell;
    const char *env = getenv("SHELL");
    if (env && env[0] == '/' && access(env, X_OK) == 0)
        return env;
    if (access("/bin/bash", X_OK) == 0)
        return "/bin/bash";
    return "/bin/sh";
}

/* In the child, on the new terminal: never returns. */
static void exec_shell(const struct shell_options *o)
{
    /* The relay ignores SIGPIPE and SIGHUP; an ignored signal stays ignored across exec, and a
     * shell that ignores SIGHUP would outlive its WebSocket until the SIGKILL. */
    const int reset[] = {SIGPIPE, SIGHUP, SIGCHLD, SIGINT, SIGQUIT, SIGTERM};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; ++i)
        signal(reset[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    const char *dir = o->cwd;
    if (chdir(dir) != 0) {
        dir = "/";
        if (chdir(dir) != 0)
            _exit(126);
    }
    setenv("PWD", dir, 1); /* else a shell may trust a PWD inherited from the relay's starter */
    setenv("TERM", "xterm-256color", 1);

    const char *path = choose_shell(o);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char argv0[PATH_MAX + 1];
    snprintf(argv0, sizeof argv0, "-%s", base); /* a login shell, as login(1) starts it */
    execl(path, argv0, (char *)NULL);
    fprintf(stderr, "isolation-pty-relay: cannot run %s: %s\r\n", path, strerror(errno));
    _exit(127);
}

pid_t shell_start(const struct shell_options *o, uint16_t cols, uint16_t rows, int *master)
{
    struct winsize size = {.ws_row = rows, .ws_col = cols};
    const pid_t pid = forkpty(master, NULL, NULL, &size);
    if (pid < 0)
        return -1;
    if (pid == 0)
        exec_shell(o);
    /* Close-on-exec, so the next shell does not inherit this one's terminal. */
    fcntl(*master, F_SETFD, FD_CLOEXEC);
    fcntl(*master, F_SETFL, fcntl(*master, F_GETFL) | O_NONBLOCK);
    return pid;
}

/* The session field of /proc/<pid>/stat, or -1. */
static pid_t session_of(const char *pid)
{
    char path[64];
    char stat[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0)
        return -1;
    stat[n] = '\0';
    /* "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses. */
    const char *p = strrchr(stat, ')');
    int session = -1;
    if (!p || sscanf(p + 1, " %*c %*d %*d %d", &session) != 1)
        return -1;
    return session;
}

void shell_signal_session(pid_t sid, int sig)
{
    if (sid <= 1)
        return;
    kill(-sid, sig);
    DIR *proc = opendir("/proc");
    if (!proc)
        return;
    for (const struct dirent *e; (e = readdir(proc));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        if (session_of(e->d_name) == sid)
            kill((pid_t)atoi(e->d_name), sig);
    }
    closedir(proc);
}
