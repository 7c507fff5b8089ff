#include "wsframe.h"

#include <stdlib.h>
#include <string.h>

/* Above this, a reassembly buffer is given back once its message went out: one big paste should
 * not pin a megabyte for the rest of the session. */
enum { KEEP_CAPACITY = 64 * 1024 };

void ws_decoder_init(struct ws_decoder *d)
{
    memset(d, 0, sizeof *d);
}

void ws_decoder_free(struct ws_decoder *d)
{
    free(d->data);
    memset(d, 0, sizeof *d);
}

static enum ws_status fail(struct ws_decoder *d, uint16_t code, const char *text)
{
    d->error = code;
    d->error_text = text;
    return WS_ERROR;
}

static int is_control(uint8_t opcode)
{
    return (opcode & 0x8) != 0;
}

/* How many head bytes this frame has, as far as the bytes read so far tell. */
static size_t head_size(const struct ws_decoder *d)
{
    if (d->head_length < 2)
        return 2;
    const uint8_t length7 = d->head[1] & 0x7f;
    const size_t extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
    return 2 + extended + ((d->head[1] & 0x80) ? 4 : 0);
}

/* The first two bytes alone decide most refusals, before any length is trusted. */
static enum ws_status check_first_bytes(struct ws_decoder *d)
{
    const uint8_t opcode = d->head[0] & 0x0f;
    const int fin = (d->head[0] & 0x80) != 0;
    if (d->head[0] & 0x70)
        return fail(d, WS_CLOSE_PROTOCOL_ERROR, "reserved bits set");
    switch (opcode) {
    case WS_CONTINUATION:
        if (d->data_opcode == 0)
            return fail(d, WS_CLOSE_PROTOCOL_ERROR, "continuation without a message");
        break;
    case WS_TEXT:
    case WS_BINARY:
        if (d->data_opcode != 0)
            return fail(d, WS_CLOSE_PROTOCOL_ERROR, "new message inside a fragmented one");
        break;
    case WS_CLOSE:
    case WS_PING:
    case WS_PONG:
        if (!fin)
            return fail(d, WS_CLOSE_PROTOCOL_ERROR, "fragmented control frame");
        if ((d->head[1] & 0x7f) > WS_MAX_CONTROL)
            return fail(d, WS_CLOSE_PROTOCOL_ERROR, "control frame over 125 bytes");
        break;
    default:
        return fail(d, WS_CLOSE_PROTOCOL_ERROR, "unknown opcode");
    }
    if (!(d->head[1] & 0x80))
        return fail(d, WS_CLOSE_PROTOCOL_ERROR, "frame not masked");
    return WS_NEED_MORE;
}

/* The head is complete: its length and mask, and room for the payload. */
static enum ws_status start_payload(struct ws_decoder *d)
{
    const uint8_t length7 = d->head[1] & 0x7f;
    const uint8_t *p = d->head + 2;
    uint64_t length = length7;
    if (length7 == 126) {
        length = (uint64_t)p[0] << 8 | p[1];
        p += 2;
    } else if (length7 == 127) {
        length = 0;
        for (int i = 0; i < 8; ++i)
            length = length << 8 | p[i];
        p += 8;
        if (length >> 63)
            return fail(d, WS_CLOSE_PROTOCOL_ERROR, "length with the top bit set");
    }
    memcpy(d->mask, p, 4);
    d->opcode = d->head[0] & 0x0f;
    d->fin = (d->head[0] & 0x80) != 0;
    d->remaining = length;
    d->mask_offset = 0;
    d->in_payload = 1;
    if (is_control(d->opcode)) {
        d->control_length = 0;
        return WS_NEED_MORE;
    }
    /* Refused on the announced length, before a byte of it is buffered. */
    if (length > WS_MAX_MESSAGE - d->data_length)
        return fail(d, WS_CLOSE_TOO_BIG, "message over 1 MiB");
    if (d->opcode != WS_CONTINUATION)
        d->data_opcode = d->opcode;
    const size_t needed = d->data_length + (size_t)length;
    if (needed > d->data_capacity) {
        size_t capacity = d->data_capacity * 2;
        if (capacity < needed)
            capacity = needed;
        if (capacity > WS_MAX_MESSAGE)
            capacity = WS_MAX_MESSAGE;
        uint8_t *data = realloc(d->data, capacity);
        if (!data)
            return fail(d, WS_CLOSE_INTERNAL_ERROR, "out of memory");
        d->data = data;
        d->data_capacity = capacity;
    }
    return WS_NEED_MORE;
}

/* A whole control frame: a close frame's payload must be empty or hold a valid code. */
static enum ws_status finish_control(struct ws_decoder *d, struct ws_message *out)
{
    memset(out, 0, sizeof *out);
    out->opcode = d->opcode;
    out->payload = d->control;
    out->length = d->control_length;
    out->close_code = WS_CLOSE_NO_STATUS;
    if (d->opcode == WS_CLOSE && d->control_length > 0) {
        if (d->control_length < 2)
            return fail(d, WS_CLOSE_PROTOCOL_ERROR, "close frame of one byte");
        out->close_code = (uint16_t)(d->control[0] << 8 | d->control[1]);
        if (!ws_valid_close_code(out->close_code))
            return fail(d, WS_CLOSE_PROTOCOL_ERROR, "invalid close code");
        out->reason = d->control + 2;
        out->reason_length = d->control_length - 2;
    }
    return WS_MESSAGE;
}

enum ws_status ws_decoder_feed(struct ws_decoder *d, const uint8_t *in, size_t length, size_t *used,
                               struct ws_message *out)
{
    size_t i = 0;
    *used = 0;
    if (d->error)
        return WS_ERROR;
    if (d->delivered) {
        d->delivered = 0;
        d->data_length = 0;
        d->data_opcode = 0;
        if (d->data_capacity > KEEP_CAPACITY) {
            free(d->data);
            d->data = NULL;
            d->data_capacity = 0;
        }
    }
    for (;;) {
        if (!d->in_payload) {
            while (d->head_length < head_size(d) && i < length) {
                d->head[d->head_length++] = in[i++];
                if (d->head_length == 2 && check_first_bytes(d) == WS_ERROR)
                    return WS_ERROR;
            }
            if (d->head_length < head_size(d)) {
                *used = i;
                return WS_NEED_MORE;
            }
            if (start_payload(d) == WS_ERROR)
                return WS_ERROR;
        }
        size_t n = length - i;
        if (n > d->remaining)
            n = (size_t)d->remaining;
        if (n > 0) { /* data may still be NULL for an empty message */
            uint8_t *to = is_control(d->opcode) ? d->control + d->control_length : d->data + d->data_length;
            for (size_t k = 0; k < n; ++k)
                to[k] = in[i + k] ^ d->mask[(d->mask_offset + k) & 3];
            if (is_control(d->opcode))
                d->control_length += n;
            else
                d->data_length += n;
        }
        d->mask_offset += n;
        d->remaining -= n;
        i += n;
        if (d->remaining > 0) {
            *used = i;
            return WS_NEED_MORE;
        }
        /* The frame is complete. */
        d->in_payload = 0;
        d->head_length = 0;
        if (is_control(d->opcode)) {
            *used = i;
            return finish_control(d, out);
        }
        if (d->fin) {
            memset(out, 0, sizeof *out);
            out->opcode = d->data_opcode;
            out->payload = d->data;
            out->length = d->data_length;
            out->close_code = WS_CLOSE_NO_STATUS;
            d->delivered = 1;
            *used = i;
            return WS_MESSAGE;
        }
    }
}

int ws_valid_close_code(uint16_t code)
{
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

size_t ws_encode_head(uint8_t out[WS_MAX_HEAD], uint8_t opcode, uint64_t length)
{
    out[0] = (uint8_t)(0x80 | (opcode & 0x0f));
    if (length < 126) {
        out[1] = (uint8_t)length;
        return 2;
    }
    if (length <= 0xffff) {
        out[1] = 126;
        out[2] = (uint8_t)(length >> 8);
        out[3] = (uint8_t)length;
        return 4;
    }
    out[1] = 127;
    for (int i = 0; i < 8; ++i)
        out[2 + i] = (uint8_t)(length >> (56 - 8 * i));
    return 10;
}

size_t ws_encode(uint8_t *out, size_t capacity, uint8_t opcode, const uint8_t *payload, size_t length,
                 const uint8_t *mask)
{
    uint8_t head[WS_MAX_HEAD];
    if (is_control(opcode) && length > WS_MAX_CONTROL)
        return 0;
    size_t n = ws_encode_head(head, opcode, length);
    if (mask) {
        head[1] |= 0x80;
        memcpy(head + n, mask, 4);
        n += 4;
    }
    if (capacity < n || capacity - n < length)
        return 0;
    memcpy(out, head, n);
    for (size_t k = 0; k < length; ++k)
        out[n + k] = mask ? payload[k] ^ mask[k & 3] : payload[k];
    return n + length;
}

size_t ws_close_payload(uint8_t out[WS_MAX_CONTROL], uint16_t code, const char *reason)
{
    size_t n = reason ? strlen(reason) : 0;
    if (n > WS_MAX_CONTROL - 2)
        n = WS_MAX_CONTROL - 2;
    out[0] = (uint8_t)(code >> 8);
    out[1] = (uint8_t)code;
    if (n > 0)
        memcpy(out + 2, reason, n);
    return 2 + n;
}

uint16_t relay_decode(const uint8_t *payload, size_t length, struct relay_message *out)
{
    memset(out, 0, sizeof *out);
    if (length == 0)
        return WS_CLOSE_UNSUPPORTED;
    switch (payload[0]) {
    case 0x00:
        out->kind = RELAY_INPUT;
        out->input = payload + 1;
        out->input_length = length - 1;
        return 0;
    case 0x01:
        if (length != 5)
            return WS_CLOSE_UNSUPPORTED;
        out->cols = (uint16_t)(payload[1] << 8 | payload[2]);
        out->rows = (uint16_t)(payload[3] << 8 | payload[4]);
        if (out->cols < 1 || out->cols > RELAY_MAX_SIZE || out->rows < 1 || out->rows > RELAY_MAX_SIZE) {
            out->kind = RELAY_IGNORED;
            out->cols = out->rows = 0;
        } else {
            out->kind = RELAY_RESIZE;
        }
        return 0;
    default:
        return WS_CLOSE_UNSUPPORTED;
    }
}
