/* The PTY relay's door: a WebSocket opening handshake (RFC 6455 section 4.2) for GET /pty with
 * the relay's secret, read with llhttp, and the answer to it (101, 400 or 403). */
#ifndef ISOLATION_PTYRELAY_HANDSHAKE_H
#define ISOLATION_PTYRELAY_HANDSHAKE_H

#include <llhttp.h>

#include <stddef.h>
#include <stdint.h>

enum {
    HS_MAX_HEAD = 8 * 1024,
    HS_ANSWER_SIZE = 256, /* room for any answer hs_answer writes */
};

enum hs_result {
    HS_NEED_MORE,
    HS_UPGRADE,   /* 101: a WebSocket with a shell */
    HS_BAD,       /* 400: not an opening handshake for GET /pty */
    HS_FORBIDDEN, /* 403: the secret is wrong or missing */
};

struct hs_span {
    const char *at;
    size_t length;
};

/* One request head, read from a buffer of the caller's that stays in place while it is read: the
 * spans point into it. */
struct hs_request {
    llhttp_t parser;
    struct hs_span url, field, value;
    int header; /* which header the field being read names (handshake.c) */
    struct hs_span key, secret, version;
    int keys, secrets, versions; /* how often each came: twice is refused */
    int upgrade_websocket, connection_upgrade;
    int complete;
    const char *head_end; /* after the blank line: what follows is WebSocket frames */
    uint16_t cols, rows;
    char accept[32];      /* Sec-WebSocket-Accept, with HS_UPGRADE */
};

void hs_init(struct hs_request *r);

/* Reads the next bytes of the head (appended to the buffer the earlier ones are in). Decides once
 * the head is complete: the secret first (so nothing is told to a caller without it), then the
 * handshake. */
enum hs_result hs_feed(struct hs_request *r, const char *bytes, size_t length, const char *secret,
                       size_t secret_length);

/* The answer to a decided request, with its head's terminating blank line; returns its length. */
size_t hs_answer(const struct hs_request *r, enum hs_result result, char out[HS_ANSWER_SIZE]);

/* Equal, in a time that does not depend on where the bytes differ. */
int hs_equal_secret(const char *a, size_t a_length, const char *b, size_t b_length);

#endif
