#include "handshake.h"

/* SHA1_Init and friends: deprecated in OpenSSL 3, but they compute the digest directly, while the
 * EVP path goes through the provider machinery and would make this static program megabytes
 * bigger. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

enum header {
    H_OTHER,
    H_UPGRADE,
    H_CONNECTION,
    H_KEY,
    H_VERSION,
    H_SECRET,
};

static const char WEBSOCKET_GUID[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

static struct hs_request *request_of(llhttp_t *p)
{
    return (struct hs_request *)p->data;
}

/* The buffer holds the whole head in place, so the pieces of a span that llhttp hands over in
 * two reads lie next to each other: extend rather than copy. */
static void extend(struct hs_span *s, const char *at, size_t length)
{
    if (!s->at)
        s->at = at;
    s->length = (size_t)(at + length - s->at);
}

static struct hs_span trimmed(struct hs_span s)
{
    while (s.length > 0 && (s.at[0] == ' ' || s.at[0] == '\t'))
        ++s.at, --s.length;
    while (s.length > 0 && (s.at[s.length - 1] == ' ' || s.at[s.length - 1] == '\t'))
        --s.length;
    return s;
}

static int span_is(struct hs_span s, const char *text)
{
    return s.length == strlen(text) && strncasecmp(s.at, text, s.length) == 0;
}

/* A comma-separated token list (Connection, Upgrade) holds the token, case-insensitively. */
static int list_has(struct hs_span list, const char *token)
{
    size_t start = 0;
    for (size_t i = 0; i <= list.length; ++i) {
        if (i == list.length || list.at[i] == ',') {
            struct hs_span item = {list.at + start, i - start};
            if (span_is(trimmed(item), token))
                return 1;
            start = i + 1;
        }
    }
    return 0;
}

static int on_url(llhttp_t *p, const char *at, size_t length)
{
    extend(&request_of(p)->url, at, length);
    return 0;
}

static int on_header_field(llhttp_t *p, const char *at, size_t length)
{
    extend(&request_of(p)->field, at, length);
    return 0;
}

static int on_header_field_complete(llhttp_t *p)
{
    struct hs_request *r = request_of(p);
    const struct hs_span f = r->field;
    r->header = span_is(f, "Upgrade")                    ? H_UPGRADE
                : span_is(f, "Connection")               ? H_CONNECTION
                : span_is(f, "Sec-WebSocket-Key")        ? H_KEY
                : span_is(f, "Sec-WebSocket-Version")    ? H_VERSION
                : span_is(f, "X-Isolation-Relay-Secret") ? H_SECRET
                                                         : H_OTHER;
    r->field = (struct hs_span) {0};
    r->value = (struct hs_span) {0};
    return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t length)
{
    extend(&request_of(p)->value, at, length);
    return 0;
}

static int on_header_value_complete(llhttp_t *p)
{
    struct hs_request *r = request_of(p);
    const struct hs_span v = trimmed(r->value);
    switch (r->header) {
    case H_UPGRADE:
        r->upgrade_websocket |= list_has(v, "websocket");
        break;
    case H_CONNECTION: /* may come more than once, each a list */
        r->connection_upgrade |= list_has(v, "upgrade");
        break;
    case H_KEY:
        r->key = v, ++r->keys;
        break;
    case H_VERSION:
        r->version = v, ++r->versions;
        break;
    case H_SECRET:
        r->secret = v, ++r->secrets;
        break;
    }
    r->value = (struct hs_span) {0};
    return 0;
}

static int on_headers_complete(llhttp_t *p)
{
    request_of(p)->complete = 1;
    return 2; /* no body, whatever the head says: stop here (HPE_PAUSED_UPGRADE), frames follow */
}

static const llhttp_settings_t SETTINGS = {
    .on_url = on_url,
    .on_header_field = on_header_field,
    .on_header_field_complete = on_header_field_complete,
    .on_header_value = on_header_value,
    .on_header_value_complete = on_header_value_complete,
    .on_headers_complete = on_headers_complete,
};

void hs_init(struct hs_request *r)
{
    memset(r, 0, sizeof *r);
    llhttp_init(&r->parser, HTTP_REQUEST, &SETTINGS);
    r->parser.data = r;
}

int hs_equal_secret(const char *a, size_t a_length, const char *b, size_t b_length)
{
    /* The length is no secret (64 hex digits); the bytes are. */
    return a_length == b_length && CRYPTO_memcmp(a, b, a_length) == 0;
}

/* 1..1000, or 0. */
static uint16_t size_value(struct hs_span v)
{
    unsigned n = 0;
    if (v.length < 1 || v.length > 4)
        return 0;
    for (size_t i = 0; i < v.length; ++i) {
        if (v.at[i] < '0' || v.at[i] > '9')
            return 0;
        n = n * 10 + (unsigned)(v.at[i] - '0');
    }
    return n >= 1 && n <= 1000 ? (uint16_t)n : 0;
}

/* The path must be /pty; cols and rows come from the query when they are in range. */
static int read_target(struct hs_request *r)
{
    const char *q = memchr(r->url.at, '?', r->url.length);
    const struct hs_span path = {r->url.at, q ? (size_t)(q - r->url.at) : r->url.length};
    if (path.length != 4 || memcmp(path.at, "/pty", 4) != 0)
        return 0;
    r->cols = 80;
    r->rows = 24;
    if (!q)
        return 1;
    const char *end = r->url.at + r->url.length;
    for (const char *p = q + 1; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        if (eq) {
            const struct hs_span name = {p, (size_t)(eq - p)};
            const uint16_t n = size_value((struct hs_span) {eq + 1, (size_t)(stop - eq - 1)});
            if (n && name.length == 4 && memcmp(name.at, "cols", 4) == 0)
                r->cols = n;
            else if (n && name.length == 4 && memcmp(name.at, "rows", 4) == 0)
                r->rows = n;
        }
        p = stop + 1;
    }
    return 1;
}

/* 24 characters of base64 for 16 bytes: 22 of the alphabet, then "==". */
static int valid_key(struct hs_span k)
{
    if (k.length != 24 || k.at[22] != '=' || k.at[23] != '=')
        return 0;
    for (size_t i = 0; i < 22; ++i) {
        const char c = k.at[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
            return 0;
    }
    return 1;
}

static void compute_accept(struct hs_request *r)
{
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA_CTX sha;
    SHA1_Init(&sha);
    SHA1_Update(&sha, r->key.at, r->key.length);
    SHA1_Update(&sha, WEBSOCKET_GUID, sizeof WEBSOCKET_GUID - 1);
    SHA1_Final(digest, &sha);
    EVP_EncodeBlock((unsigned char *)r->accept, digest, SHA_DIGEST_LENGTH); /* 28 characters and a NUL */
}

static enum hs_result decide(struct hs_request *r, const char *secret, size_t secret_length)
{
    if (r->secrets != 1 || !hs_equal_secret(r->secret.at, r->secret.length, secret, secret_length))
        return HS_FORBIDDEN;
    llhttp_t *p = &r->parser;
    if (llhttp_get_method(p) != HTTP_GET || p->http_major != 1 || p->http_minor < 1)
        return HS_BAD;
    if (!r->url.at || !read_target(r))
        return HS_BAD;
    if (!r->upgrade_websocket || !r->connection_upgrade)
        return HS_BAD;
    if (r->versions != 1 || !span_is(r->version, "13"))
        return HS_BAD;
    if (r->keys != 1 || !valid_key(r->key))
        return HS_BAD;
    compute_accept(r);
    return HS_UPGRADE;
}

enum hs_result hs_feed(struct hs_request *r, const char *bytes, size_t length, const char *secret,
                       size_t secret_length)
{
    const llhttp_errno_t e = llhttp_execute(&r->parser, bytes, length);
    if (e == HPE_OK)
        return HS_NEED_MORE;
    if (e != HPE_PAUSED_UPGRADE || !r->complete)
        return HS_BAD;
    r->head_end = llhttp_get_error_pos(&r->parser);
    return decide(r, secret, secret_length);
}

size_t hs_answer(const struct hs_request *r, enum hs_result result, char out[HS_ANSWER_SIZE])
{
    int n = 0;
    switch (result) {
    case HS_UPGRADE:
        n = snprintf(out, HS_ANSWER_SIZE,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Accept: %s\r\n\r\n",
                     r->accept);
        break;
    case HS_FORBIDDEN:
        n = snprintf(out, HS_ANSWER_SIZE,
                     "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
                     "Connection: close\r\n\r\nforbidden\n");
        break;
    case HS_BAD:
    case HS_NEED_MORE:
        /* The version header tells a client which WebSocket version is spoken (RFC 6455 4.4). */
        n = snprintf(out, HS_ANSWER_SIZE,
                     "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n"
                     "Sec-WebSocket-Version: 13\r\nConnection: close\r\n\r\nbad request\n");
        break;
    }
    return n > 0 ? (size_t)n : 0;
}
