#include "relay.h"

#include "handshake.h"
#include "wsframe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_CONNECTIONS = 32,
    MAX_ENDINGS = 128,
    CHUNK = 64 * 1024,                /* a read, and the largest output message */
    OUT_LIMIT = 1024 * 1024,          /* queued to a socket: the terminal is not read beyond */
    SOCKET_OUT_LIMIT = 2 * OUT_LIMIT, /* nor the socket (its pongs would pile up) */
    PTY_IN_LIMIT = 64 * 1024,         /* typed bytes the terminal has not taken: the socket waits */
    KEEP_CAPACITY = 256 * 1024,       /* an emptied buffer bigger than this is given back */
    HEAD_MS = 10 * 1000,              /* to send the request head */
    LINGER_MS = 10 * 1000,            /* to take the last output and the close */
    KILL_AFTER_MS = 2 * 1000,         /* from SIGHUP to SIGKILL */
    EXIT_DRAIN_MS = 2 * 1000,         /* for the last output of a shell that ended */
};

/* A queue of bytes: data[start, start + length). */
struct buffer {
    uint8_t *data;
    size_t start, length, capacity;
};

enum state {
    HEAD,   /* reading the request head */
    OPEN,   /* a WebSocket with a shell */
    LINGER, /* the last bytes go out, then the socket closes */
};

struct conn {
    int fd;
    enum state state;
    int64_t deadline; /* HEAD, LINGER: closed then; OPEN once the shell ended: the close goes then */
    int broken;       /* closed once this turn of the loop is over */
    int write_shut;
    struct buffer out;

    struct hs_request request;
    size_t head_length;
    char head[HS_MAX_HEAD]; /* stays in place: the request's spans point into it */

    struct ws_decoder decoder;
    pid_t shell; /* the session it leads; 0 once handed to the endings */
    int master;  /* -1 once closed */
    int master_eof;
    int exited; /* the shell ended, with exit_status; its last output is still being read */
    int exit_status;
    struct buffer to_pty;
};

/* A session sent SIGHUP, to get SIGKILL at kill_at if anything of it is left. */
struct ending {
    pid_t sid;
    int64_t kill_at;
};

struct relay {
    const struct relay_options *o;
    struct conn *conns[MAX_CONNECTIONS];
    struct ending endings[MAX_ENDINGS];
    size_t ending_count;
    int64_t idle_since;
};

static int wake_fd = -1; /* the self-pipe's write end, for the SIGCHLD handler */
static uint8_t scratch[CHUNK];

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void on_sigchld(int sig)
{
    (void)sig;
    const int saved = errno;
    if (write(wake_fd, "", 1) < 0) {
        /* full: a wake-up is pending anyway */
    }
    errno = saved;
}

static int buffer_append(struct buffer *b, const void *data, size_t n)
{
    if (n == 0)
        return 0;
    if (b->capacity - b->start - b->length < n) {
        if (b->start > 0) {
            memmove(b->data, b->data + b->start, b->length);
            b->start = 0;
        }
        if (b->capacity - b->length < n) {
            size_t capacity = b->capacity ? b->capacity : 4096;
            while (capacity < b->length + n)
                capacity *= 2;
            uint8_t *p = realloc(b->data, capacity);
            if (!p)
                return -1;
            b->data = p;
            b->capacity = capacity;
        }
    }
    memcpy(b->data + b->start + b->length, data, n);
    b->length += n;
    return 0;
}

static void buffer_free(struct buffer *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

static void buffer_consume(struct buffer *b, size_t n)
{
    b->start += n;
    b->length -= n;
    if (b->length == 0) {
        b->start = 0;
        if (b->capacity > KEEP_CAPACITY)
            buffer_free(b);
    }
}

static void queue(struct conn *c, const void *bytes, size_t n)
{
    if (buffer_append(&c->out, bytes, n) != 0)
        c->broken = 1;
}

static void queue_frame(struct conn *c, uint8_t opcode, const uint8_t *payload, size_t n)
{
    uint8_t head[WS_MAX_HEAD];
    queue(c, head, ws_encode_head(head, opcode, n));
    queue(c, payload, n);
}

static void queue_close(struct conn *c, uint16_t code, const char *reason)
{
    uint8_t payload[WS_MAX_CONTROL];
    queue_frame(c, WS_CLOSE, payload, ws_close_payload(payload, code, reason));
}

/* The shell's session gets SIGHUP now and SIGKILL later. */
static void hang_up(struct relay *r, struct conn *c)
{
    if (c->shell <= 0)
        return;
    shell_signal_session(c->shell, SIGHUP);
    if (r->ending_count < MAX_ENDINGS)
        r->endings[r->ending_count++] = (struct ending) {c->shell, now_ms() + KILL_AFTER_MS};
    else
        shell_signal_session(c->shell, SIGKILL);
    c->shell = 0;
}

/* The session hung up, the terminal closed. */
static void end_shell(struct relay *r, struct conn *c)
{
    hang_up(r, c);
    if (c->master >= 0) {
        close(c->master);
        c->master = -1;
    }
    buffer_free(&c->to_pty);
    ws_decoder_free(&c->decoder);
}

static void begin_linger(struct relay *r, struct conn *c)
{
    end_shell(r, c);
    c->state = LINGER;
    c->deadline = now_ms() + LINGER_MS;
}

static void fail(struct relay *r, struct conn *c, uint16_t code, const char *reason)
{
    queue_close(c, code, reason);
    begin_linger(r, c);
}

static void close_conn(struct relay *r, size_t i)
{
    struct conn *c = r->conns[i];
    end_shell(r, c);
    close(c->fd);
    buffer_free(&c->out);
    free(c);
    r->conns[i] = NULL;
    for (size_t k = 0; k < MAX_CONNECTIONS; ++k) {
        if (r->conns[k])
            return;
    }
    r->idle_since = now_ms();
}

static void flush_out(struct conn *c)
{
    while (c->out.length > 0) {
        const ssize_t n = send(c->fd, c->out.data + c->out.start, c->out.length, MSG_NOSIGNAL);
        if (n > 0) {
            buffer_consume(&c->out, (size_t)n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n < 0 && errno != EAGAIN)
                c->broken = 1;
            return;
        }
    }
}

static void flush_to_pty(struct conn *c)
{
    while (c->to_pty.length > 0 && c->master >= 0) {
        const ssize_t n = write(c->master, c->to_pty.data + c->to_pty.start, c->to_pty.length);
        if (n > 0) {
            buffer_consume(&c->to_pty, (size_t)n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n < 0 && errno != EAGAIN) /* EIO: nobody has the terminal open; typing goes nowhere */
                buffer_consume(&c->to_pty, c->to_pty.length);
            return;
        }
    }
}

/* One chunk of terminal output as a message; returns its size, 0 at the end, -1 for none now. */
static ssize_t read_master(struct conn *c)
{
    const ssize_t n = read(c->master, scratch, sizeof scratch);
    if (n > 0) {
        queue_frame(c, WS_BINARY, scratch, (size_t)n);
        return n;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return -1;
    c->master_eof = 1; /* EIO: no process has the terminal open any more */
    return 0;
}

/* The shell ended and its last output is read: the close says how it ended. */
static void finish_exit(struct relay *r, struct conn *c)
{
    char reason[32];
    if (WIFSIGNALED(c->exit_status))
        snprintf(reason, sizeof reason, "signal %d", WTERMSIG(c->exit_status));
    else
        snprintf(reason, sizeof reason, "exit %d", WEXITSTATUS(c->exit_status));
    fail(r, c, WS_CLOSE_NORMAL, reason);
}

/* The terminal is read on until it reports its end (EIO): what the shell wrote last may still be on
 * its way through the kernel when the shell is reaped. What is left of its session hangs up now, so
 * a job holding the terminal does not keep it open (EXIT_DRAIN_MS bounds the wait anyway). */
static void shell_exited(struct relay *r, struct conn *c, int status)
{
    c->exited = 1;
    c->exit_status = status;
    c->deadline = now_ms() + EXIT_DRAIN_MS;
    hang_up(r, c);
    if (c->master_eof)
        finish_exit(r, c);
}

static void reap(struct relay *r)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (size_t i = 0; i < MAX_CONNECTIONS; ++i) {
            struct conn *c = r->conns[i];
            if (c && c->state == OPEN && !c->exited && c->shell == pid) {
                shell_exited(r, c, status);
                break;
            }
        }
        /* Otherwise a shell whose WebSocket is already gone: its ending stands. */
    }
}

static void on_message(struct relay *r, struct conn *c, const struct ws_message *m)
{
    switch (m->opcode) {
    case WS_TEXT:
    case WS_BINARY: {
        struct relay_message rm;
        const uint16_t code = relay_decode(m->payload, m->length, &rm);
        if (code) {
            fail(r, c, code, "unsupported message");
        } else if (rm.kind == RELAY_INPUT) {
            if (buffer_append(&c->to_pty, rm.input, rm.input_length) != 0)
                c->broken = 1;
        } else if (rm.kind == RELAY_RESIZE) {
            const struct winsize size = {.ws_row = rm.rows, .ws_col = rm.cols};
            ioctl(c->master, TIOCSWINSZ, &size); /* the foreground job gets SIGWINCH */
        }
        break;
    }
    case WS_PING:
        queue_frame(c, WS_PONG, m->payload, m->length);
        break;
    case WS_CLOSE: {
        /* Answered with the same code (none when it brought none), as RFC 6455 5.5.1 has it. */
        const uint8_t code[2] = {(uint8_t)(m->close_code >> 8), (uint8_t)m->close_code};
        queue_frame(c, WS_CLOSE, code, m->close_code == WS_CLOSE_NO_STATUS ? 0 : 2);
        begin_linger(r, c);
        break;
    }
    default: /* a pong */
        break;
    }
}

static void feed_frames(struct relay *r, struct conn *c, const uint8_t *bytes, size_t n)
{
    while (n > 0 && c->state == OPEN && !c->broken) {
        size_t used;
        struct ws_message m;
        const enum ws_status status = ws_decoder_feed(&c->decoder, bytes, n, &used, &m);
        bytes += used;
        n -= used;
        if (status == WS_ERROR)
            fail(r, c, c->decoder.error, c->decoder.error_text);
        else if (status == WS_MESSAGE)
            on_message(r, c, &m);
    }
    flush_to_pty(c);
}

static void answer(struct relay *r, struct conn *c, enum hs_result result)
{
    char text[HS_ANSWER_SIZE];
    queue(c, text, hs_answer(&c->request, result, text));
    begin_linger(r, c);
}

static void open_websocket(struct relay *r, struct conn *c)
{
    c->shell = shell_start(&r->o->shell, c->request.cols, c->request.rows, &c->master);
    if (c->shell < 0) {
        static const char failed[] = "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n"
                                     "Content-Length: 20\r\nConnection: close\r\n\r\nno pseudo-terminal\r\n";
        c->shell = 0;
        c->master = -1;
        queue(c, failed, sizeof failed - 1);
        begin_linger(r, c);
        return;
    }
    char text[HS_ANSWER_SIZE];
    queue(c, text, hs_answer(&c->request, HS_UPGRADE, text));
    c->state = OPEN;
    ws_decoder_init(&c->decoder);
    /* A client may send frames right behind its head. */
    const char *end = c->head + c->head_length;
    if (c->request.head_end && c->request.head_end < end)
        feed_frames(r, c, (const uint8_t *)c->request.head_end, (size_t)(end - c->request.head_end));
}

static void read_head(struct relay *r, struct conn *c)
{
    char *at = c->head + c->head_length;
    const ssize_t n = recv(c->fd, at, HS_MAX_HEAD - c->head_length, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        c->broken = 1;
        return;
    }
    c->head_length += (size_t)n;
    const enum hs_result result = hs_feed(&c->request, at, (size_t)n, r->o->secret, r->o->secret_length);
    if (result == HS_UPGRADE)
        open_websocket(r, c);
    else if (result != HS_NEED_MORE)
        answer(r, c, result);
    else if (c->head_length == HS_MAX_HEAD)
        answer(r, c, HS_BAD);
}

/* Reads from the socket: a request head, frames, or (lingering) whatever comes until the end. */
static void read_socket(struct relay *r, struct conn *c)
{
    if (c->state == HEAD) {
        read_head(r, c);
        return;
    }
    const ssize_t n = recv(c->fd, scratch, sizeof scratch, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0)
        c->broken = 1; /* the WebSocket broke, or its peer is done after the close */
    else if (c->state == OPEN)
        feed_frames(r, c, scratch, (size_t)n);
}

static void handle(struct relay *r, size_t i, short socket_events, short master_events)
{
    struct conn *c = r->conns[i];
    if (!c)
        return;
    /* reap() may have ended the shell since poll(): the master's events are stale then. */
    if (c->state == OPEN && c->master >= 0) {
        if (master_events & POLLOUT)
            flush_to_pty(c);
        if ((master_events & (POLLIN | POLLHUP | POLLERR)) && !c->master_eof && c->out.length <= OUT_LIMIT)
            read_master(c);
        if (c->exited && c->master_eof)
            finish_exit(r, c);
    }
    if (socket_events & (POLLIN | POLLHUP | POLLERR))
        read_socket(r, c);
    if (c->state != HEAD && !c->broken)
        flush_out(c);
    if (c->state == LINGER && c->out.length == 0 && !c->write_shut) {
        shutdown(c->fd, SHUT_WR); /* the peer sees the end and closes; its close ends the linger */
        c->write_shut = 1;
    }
    if (c->broken)
        close_conn(r, i);
}

static void accept_all(struct relay *r, int listener)
{
    for (;;) {
        const int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        size_t i = 0;
        while (i < MAX_CONNECTIONS && r->conns[i])
            ++i;
        struct conn *c = i < MAX_CONNECTIONS ? calloc(1, sizeof *c) : NULL;
        if (!c) {
            close(fd); /* full: shed it rather than leave it waiting */
            continue;
        }
        c->fd = fd;
        c->state = HEAD;
        c->deadline = now_ms() + HEAD_MS;
        c->master = -1;
        hs_init(&c->request);
        r->conns[i] = c;
    }
}

static int any_connection(const struct relay *r)
{
    for (size_t i = 0; i < MAX_CONNECTIONS; ++i) {
        if (r->conns[i])
            return 1;
    }
    return 0;
}

/* Closes what ran out of time, kills what outlived its SIGHUP; returns the next deadline or -1. */
static int64_t expire(struct relay *r, int64_t now)
{
    int64_t next = -1;
    for (size_t i = 0; i < MAX_CONNECTIONS; ++i) {
        struct conn *c = r->conns[i];
        if (!c || (c->state == OPEN && !c->exited))
            continue;
        if (c->deadline <= now && c->state == OPEN)
            finish_exit(r, c); /* sets a new deadline */
        else if (c->deadline <= now)
            close_conn(r, i);
        if (r->conns[i] && (next < 0 || c->deadline < next))
            next = c->deadline;
    }
    for (size_t k = 0; k < r->ending_count;) {
        const struct ending e = r->endings[k];
        if (e.kill_at > now) {
            if (next < 0 || e.kill_at < next)
                next = e.kill_at;
            ++k;
            continue;
        }
        int reused = 0; /* the pid came back as a new shell's: that session is not this one */
        for (size_t i = 0; i < MAX_CONNECTIONS; ++i)
            reused |= r->conns[i] && r->conns[i]->shell == e.sid;
        if (!reused)
            shell_signal_session(e.sid, SIGKILL);
        r->endings[k] = r->endings[--r->ending_count];
    }
    if (!any_connection(r) && r->ending_count == 0) {
        const int64_t idle_at = r->idle_since + r->o->idle_exit_seconds * 1000;
        if (next < 0 || idle_at < next)
            next = idle_at;
    }
    return next;
}

int relay_serve(int listener, const struct relay_options *o)
{
    struct relay r = {.o = o, .idle_since = now_ms()};
    int wake[2];
    if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) != 0)
        return 1;
    wake_fd = wake[1];
    struct sigaction sa = {.sa_handler = on_sigchld, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);

    struct pollfd pfd[2 + 2 * MAX_CONNECTIONS];
    for (;;) {
        const int64_t now = now_ms();
        const int64_t next = expire(&r, now);
        if (!any_connection(&r) && r.ending_count == 0 && now >= r.idle_since + o->idle_exit_seconds * 1000)
            return 0;
        pfd[0] = (struct pollfd) {.fd = listener, .events = POLLIN};
        pfd[1] = (struct pollfd) {.fd = wake[0], .events = POLLIN};
        for (size_t i = 0; i < MAX_CONNECTIONS; ++i) {
            const struct conn *c = r.conns[i];
            struct pollfd *s = &pfd[2 + 2 * i];
            struct pollfd *m = s + 1;
            *s = (struct pollfd) {.fd = -1};
            *m = (struct pollfd) {.fd = -1};
            if (!c)
                continue;
            s->fd = c->fd;
            const short out = c->out.length > 0 ? POLLOUT : 0;
            if (c->state == HEAD)
                s->events = POLLIN;
            else if (c->state == LINGER)
                s->events = POLLIN | out;
            else if (c->to_pty.length < PTY_IN_LIMIT && c->out.length < SOCKET_OUT_LIMIT)
                s->events = POLLIN | out;
            else
                s->events = out; /* backpressure: the terminal has not taken what was typed */
            if (c->state == OPEN && c->master >= 0) {
                /* Backpressure: more than OUT_LIMIT waiting for the socket, the terminal waits. */
                m->events = (!c->master_eof && c->out.length <= OUT_LIMIT ? POLLIN : 0)
                            | (c->to_pty.length > 0 ? POLLOUT : 0);
                /* Not polled at all when nothing is wanted: a hung-up master would wake poll() at once. */
                m->fd = m->events ? c->master : -1;
            }
        }
        const int64_t wait = next < 0 ? -1 : next - now;
        if (poll(pfd, 2 + 2 * MAX_CONNECTIONS, wait > INT_MAX ? INT_MAX : (int)wait) < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        if (pfd[1].revents) {
            char drain[64];
            while (read(wake[0], drain, sizeof drain) > 0) {
            }
            reap(&r);
        }
        for (size_t i = 0; i < MAX_CONNECTIONS; ++i)
            handle(&r, i, pfd[2 + 2 * i].revents, pfd[3 + 2 * i].revents);
        if (pfd[0].revents & POLLIN)
            accept_all(&r, listener);
    }
}
