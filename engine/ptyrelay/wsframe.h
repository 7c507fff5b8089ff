/* The PTY relay's WebSocket framing (RFC 6455) and its own messages (docs/protocol.md, "The PTY
 * relay"): frames from a client are read incrementally and reassembled, frames to a client are
 * written. Pure functions over buffers, no I/O, so they can be fuzzed. */
#ifndef ISOLATION_PTYRELAY_WSFRAME_H
#define ISOLATION_PTYRELAY_WSFRAME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    WS_MAX_MESSAGE = 1024 * 1024, /* a data message, reassembled */
    WS_MAX_CONTROL = 125,         /* a control frame's payload */
    WS_MAX_HEAD = 14,             /* 2 + 8 (length) + 4 (mask) */
};

enum ws_opcode {
    WS_CONTINUATION = 0x0,
    WS_TEXT = 0x1,
    WS_BINARY = 0x2,
    WS_CLOSE = 0x8,
    WS_PING = 0x9,
    WS_PONG = 0xA,
};

/* The close codes the relay fails a connection with, and the one it ends a shell with. */
enum ws_close_code {
    WS_CLOSE_NORMAL = 1000,
    WS_CLOSE_PROTOCOL_ERROR = 1002,
    WS_CLOSE_UNSUPPORTED = 1003,
    WS_CLOSE_NO_STATUS = 1005, /* never sent: a close frame that carried no code */
    WS_CLOSE_TOO_BIG = 1009,
    WS_CLOSE_INTERNAL_ERROR = 1011,
};

enum ws_status {
    WS_NEED_MORE, /* every byte given was taken; no message complete yet */
    WS_MESSAGE,   /* a message is complete (maybe with bytes left over) */
    WS_ERROR,     /* fail the connection with ws_decoder.error; stays so */
};

struct ws_message {
    uint8_t opcode;          /* WS_TEXT, WS_BINARY (the first frame's), WS_CLOSE, WS_PING, WS_PONG */
    const uint8_t *payload;  /* unmasked; valid until the next ws_decoder_feed or ws_decoder_free */
    size_t length;
    uint16_t close_code;     /* WS_CLOSE: the code, or WS_CLOSE_NO_STATUS without a payload */
    const uint8_t *reason;   /* WS_CLOSE: the reason, the payload after the code (not checked as UTF-8) */
    size_t reason_length;
};

/* Reads frames from a client: every frame must be masked. Zero-initialise, or ws_decoder_init. */
struct ws_decoder {
    uint16_t error;         /* 0, or the close code to fail the connection with */
    const char *error_text; /* why, for a close reason; static */

    uint8_t head[WS_MAX_HEAD];
    size_t head_length;     /* bytes of head[] read */
    int in_payload;         /* the head is complete; payload bytes follow */
    uint8_t opcode;
    int fin;
    uint8_t mask[4];
    uint64_t remaining;     /* payload bytes of this frame still to come */
    size_t mask_offset;     /* payload bytes of this frame already read */

    uint8_t control[WS_MAX_CONTROL];
    size_t control_length;

    uint8_t *data;          /* the data message being reassembled */
    size_t data_length, data_capacity;
    uint8_t data_opcode;    /* its first frame's opcode; 0 while no message is open */
    int delivered;          /* data[] went out as a message: start afresh at the next feed */
};

void ws_decoder_init(struct ws_decoder *d);
void ws_decoder_free(struct ws_decoder *d);

/* Takes bytes from in[0..length) until a message is complete, an error, or the bytes run out;
 * *used says how many it took (the caller feeds the rest again). On WS_MESSAGE, *out is set. */
enum ws_status ws_decoder_feed(struct ws_decoder *d, const uint8_t *in, size_t length, size_t *used,
                               struct ws_message *out);

/* A close code a peer may send in a close frame (RFC 6455 section 7.4, IANA registry). */
int ws_valid_close_code(uint16_t code);

/* Writes a single-frame message (FIN set): masked with mask[4], as a client does, or unmasked
 * (mask NULL), as the relay does. Returns the frame's size, or 0 when capacity is too small or a
 * control payload is over 125 bytes. A frame needs at most WS_MAX_HEAD + length bytes. */
size_t ws_encode(uint8_t *out, size_t capacity, uint8_t opcode, const uint8_t *payload, size_t length,
                 const uint8_t *mask);

/* Writes the head alone of an unmasked frame (FIN set) with that payload length; returns its size. */
size_t ws_encode_head(uint8_t out[WS_MAX_HEAD], uint8_t opcode, uint64_t length);

/* The payload of a close frame: the code, then as much of the reason as fits in 125 bytes. */
size_t ws_close_payload(uint8_t out[WS_MAX_CONTROL], uint16_t code, const char *reason);

/* The relay's messages, the payload of a data message from the page. */
enum relay_kind {
    RELAY_INPUT,   /* 0x00 + bytes typed */
    RELAY_RESIZE,  /* 0x01 + cols (u16 BE) + rows (u16 BE), both in 1..1000 */
    RELAY_IGNORED, /* a resize outside 1..1000 */
};

struct relay_message {
    enum relay_kind kind;
    const uint8_t *input; /* RELAY_INPUT: points into the payload */
    size_t input_length;
    uint16_t cols, rows;  /* RELAY_RESIZE */
};

enum { RELAY_MAX_SIZE = 1000 };

/* Decodes a message; returns 0, or the close code for one the relay does not take (1003). */
uint16_t relay_decode(const uint8_t *payload, size_t length, struct relay_message *out);

#ifdef __cplusplus
}
#endif

#endif
