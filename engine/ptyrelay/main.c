/* isolation-pty-relay: a pseudo-terminal behind a WebSocket, inside a sandbox (docs/protocol.md,
 * "The PTY relay"). Static, so it runs in any x86-64 image: it takes its secret from the
 * environment (and scrubs it there), listens on 127.0.0.1, says where, and goes to the background. */
#include "relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

static const char SECRET_NAME[] = "ISOLATION_PTY_SECRET";
enum {
    MIN_SECRET = 32,
    MAX_SECRET = 1024,
    DEFAULT_IDLE_EXIT = 3900, /* 65 minutes: a view lives an hour */
};

static void usage(FILE *to)
{
    fprintf(to,
            "usage: isolation-pty-relay [--cwd DIR] [--shell PATH] [--idle-exit SECONDS]\n"
            "\n"
            "Serves WebSocket GET /pty on 127.0.0.1 (a port the system chooses, printed as\n"
            "'isolation-pty-relay listening 127.0.0.1:PORT'), then runs in the background. Each\n"
            "WebSocket gets a login shell on a pseudo-terminal of its own.\n"
            "\n"
            "  --cwd DIR            where shells start (default /workspace; / when it is missing)\n"
            "  --shell PATH         the shell (default $SHELL if executable, else /bin/bash, else /bin/sh)\n"
            "  --idle-exit SECONDS  end after this long without a connection (default %d)\n"
            "\n"
            "The environment must hold %s (at least %d characters), the value the\n"
            "X-Isolation-Relay-Secret header must carry; it is removed from the environment.\n",
            DEFAULT_IDLE_EXIT, SECRET_NAME, MIN_SECRET);
}

/* Copies the secret, then wipes it from the block /proc/<pid>/environ shows (unsetenv only drops
 * the pointer to it) and from the environment the shells inherit. NULL when missing. */
static char *take_secret(void)
{
    const size_t name_length = sizeof SECRET_NAME - 1;
    char *secret = NULL;
    for (char **e = environ; *e; ++e) {
        if (strncmp(*e, SECRET_NAME, name_length) != 0 || (*e)[name_length] != '=')
            continue;
        char *value = *e + name_length + 1;
        if (!secret)
            secret = strdup(value);
        explicit_bzero(value, strlen(value));
    }
    unsetenv(SECRET_NAME);
    return secret;
}

static int listen_loopback(unsigned *port)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 64) != 0
        || getsockname(fd, (struct sockaddr *)&a, &length) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* The caller's command ends here with status 0; the relay goes on in a session of its own, its
 * standard streams on /dev/null (else the caller would wait for them to close). The command ends
 * only once the relay has let go of them: the child says so through a pipe (its closing end is
 * enough, should it die first). */
static void go_to_background(void)
{
    int detached[2];
    if (pipe(detached) != 0) {
        perror("isolation-pty-relay: pipe");
        exit(1);
    }
    const pid_t pid = fork();
    if (pid < 0) {
        perror("isolation-pty-relay: fork");
        exit(1);
    }
    if (pid > 0) {
        close(detached[1]);
        char done;
        while (read(detached[0], &done, 1) < 0 && errno == EINTR) {
        }
        _exit(0);
    }
    close(detached[0]);
    setsid();
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
    if (chdir("/") != 0) {
        /* nothing better to do; shells chdir themselves */
    }
    close(detached[1]);
}

int main(int argc, char **argv)
{
    struct relay_options o = {.shell = {.cwd = "/workspace"}, .idle_exit_seconds = DEFAULT_IDLE_EXIT};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (i + 1 >= argc || (strcmp(a, "--cwd") != 0 && strcmp(a, "--shell") != 0 && strcmp(a, "--idle-exit") != 0)) {
            fprintf(stderr, "isolation-pty-relay: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        const char *value = argv[++i];
        if (strcmp(a, "--cwd") == 0) {
            o.shell.cwd = value;
        } else if (strcmp(a, "--shell") == 0) {
            o.shell.shell = value;
        } else {
            char *end = NULL;
            errno = 0;
            o.idle_exit_seconds = strtol(value, &end, 10);
            if (errno || end == value || *end || o.idle_exit_seconds < 1 || o.idle_exit_seconds > 10L * 1000 * 1000) {
                fprintf(stderr, "isolation-pty-relay: --idle-exit takes seconds, 1 or more\n");
                return 2;
            }
        }
    }

    char *secret = take_secret();
    if (!secret || strlen(secret) < MIN_SECRET || strlen(secret) > MAX_SECRET) {
        fprintf(stderr, "isolation-pty-relay: %s must hold %d to %d characters\n", SECRET_NAME, MIN_SECRET,
                MAX_SECRET);
        free(secret);
        return 2;
    }
    o.secret = secret;
    o.secret_length = strlen(secret);

    /* Ignored before the first shell: they reset both (shell.c). */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGHUP, SIG_IGN);

    unsigned port = 0;
    const int listener = listen_loopback(&port);
    if (listener < 0) {
        perror("isolation-pty-relay: listening on 127.0.0.1");
        return 1;
    }
    printf("isolation-pty-relay listening 127.0.0.1:%u\n", port);
    if (fflush(stdout) != 0)
        return 1;
    go_to_background();
    const int status = relay_serve(listener, &o);
    explicit_bzero(secret, o.secret_length);
    free(secret);
    return status;
}
