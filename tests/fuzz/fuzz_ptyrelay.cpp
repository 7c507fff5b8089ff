// libFuzzer target: the PTY relay's WebSocket reading (engine/ptyrelay/wsframe.c), the bytes the
// page sends through the doorman and execd's proxy. The first byte chooses where the rest is cut
// into two feeds (a read boundary anywhere); the rest goes to a ws_decoder, drained after each
// feed, and every data message to relay_decode.
// Invariants: the same bytes in one feed or two give the same messages and the same error; a data
// message is never over 1 MiB nor bigger than the bytes fed, and no frame is taken that would make
// it so; a control message's payload is at most 125 bytes; a close message has a code a peer may
// send (or 1005 and no payload) and the reason its payload holds; every message, encoded again
// masked, reads back the same in a fresh decoder, and unmasked is refused with 1002; an error is
// 1002, 1009 or 1011 and stays; relay_decode takes 0x00 + input and a five-byte resize (sizes
// 1..1000 or ignored) and refuses the rest with 1003; nothing crashes or leaks.
#include "fuzzsupport.h"
#include "wsframe.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace isolation::fuzz;

namespace {

const uint8_t kMask[4] = {0x5a, 0x01, 0xc3, 0x7e};

struct Message
{
    uint8_t opcode;
    std::vector<uint8_t> payload;
    uint16_t closeCode;
};

struct Run
{
    std::vector<Message> messages;
    uint16_t error = 0;
};

bool same(const Message &a, const Message &b)
{
    return a.opcode == b.opcode && a.payload == b.payload && a.closeCode == b.closeCode;
}

bool isControl(uint8_t opcode)
{
    return opcode == WS_CLOSE || opcode == WS_PING || opcode == WS_PONG;
}

// The message encoded again as one masked frame reads back the same, taking every byte; unmasked
// (as the relay writes) a client's decoder refuses it.
void readsBack(const ws_message &m)
{
    std::vector<uint8_t> frame(WS_MAX_HEAD + m.length);
    const size_t n = ws_encode(frame.data(), frame.size(), m.opcode, m.payload, m.length, kMask);
    if (n == 0 || n > frame.size())
        broken("a message read does not encode again");
    ws_decoder d;
    ws_decoder_init(&d);
    size_t used = 0;
    ws_message back;
    if (ws_decoder_feed(&d, frame.data(), n, &used, &back) != WS_MESSAGE || used != n)
        broken("a message read, encoded again, does not read back");
    if (back.opcode != m.opcode || back.length != m.length || back.close_code != m.close_code
        || (m.length > 0 && std::memcmp(back.payload, m.payload, m.length) != 0))
        broken("a message read, encoded again, reads back different");
    ws_decoder_free(&d);

    const size_t plain = ws_encode(frame.data(), frame.size(), m.opcode, m.payload, m.length, nullptr);
    uint8_t head[WS_MAX_HEAD];
    const size_t headSize = ws_encode_head(head, m.opcode, m.length);
    if (plain != headSize + m.length || std::memcmp(head, frame.data(), headSize) != 0)
        broken("ws_encode and ws_encode_head disagree");
    ws_decoder_init(&d);
    if (ws_decoder_feed(&d, frame.data(), plain, &used, &back) != WS_ERROR || d.error != WS_CLOSE_PROTOCOL_ERROR)
        broken("an unmasked frame was not refused with 1002");
    ws_decoder_free(&d);
}

void checkRelayMessage(const ws_message &m)
{
    relay_message r;
    const uint16_t code = relay_decode(m.payload, m.length, &r);
    if (code != 0) {
        if (code != WS_CLOSE_UNSUPPORTED)
            broken("relay_decode refused with a code other than 1003");
        if (m.length > 0 && m.payload[0] == 0x00)
            broken("input refused");
        if (m.length == 5 && m.payload[0] == 0x01)
            broken("a resize refused");
        return;
    }
    switch (r.kind) {
    case RELAY_INPUT:
        if (m.payload[0] != 0x00 || r.input != m.payload + 1 || r.input_length != m.length - 1)
            broken("input that is not the payload after 0x00");
        break;
    case RELAY_RESIZE:
        if (m.length != 5 || m.payload[0] != 0x01 || r.cols < 1 || r.cols > RELAY_MAX_SIZE || r.rows < 1
            || r.rows > RELAY_MAX_SIZE)
            broken("a resize out of range taken");
        if (r.cols != ((m.payload[1] << 8) | m.payload[2]) || r.rows != ((m.payload[3] << 8) | m.payload[4]))
            broken("a resize that is not the payload's");
        break;
    case RELAY_IGNORED:
        if (m.length != 5 || m.payload[0] != 0x01)
            broken("a message ignored that is no resize");
        break;
    }
}

void check(const ws_message &m, size_t fed, size_t *delivered)
{
    switch (m.opcode) {
    case WS_TEXT:
    case WS_BINARY:
        if (m.length > WS_MAX_MESSAGE)
            broken("a data message over 1 MiB");
        *delivered += m.length;
        if (*delivered > fed)
            broken("more payload delivered than bytes fed");
        if (m.close_code != WS_CLOSE_NO_STATUS || m.reason)
            broken("a data message with a close code or reason");
        checkRelayMessage(m);
        break;
    case WS_CLOSE:
        if (m.close_code == WS_CLOSE_NO_STATUS) {
            if (m.length != 0 || m.reason)
                broken("a close message without a code but with a payload");
        } else {
            if (!ws_valid_close_code(m.close_code))
                broken("a close message with a code a peer may not send");
            if (m.length < 2 || ((m.payload[0] << 8) | m.payload[1]) != m.close_code)
                broken("a close code that is not the payload's");
            if (m.reason != m.payload + 2 || m.reason_length != m.length - 2)
                broken("a close reason that is not the rest of the payload");
        }
        break;
    case WS_PING:
    case WS_PONG:
        break;
    default:
        broken("a message with an opcode that is no message's");
    }
    if (isControl(m.opcode) && m.length > WS_MAX_CONTROL)
        broken("a control message over 125 bytes");
    readsBack(m);
}

Run decode(const uint8_t *data, size_t size, size_t cut)
{
    Run run;
    ws_decoder d;
    ws_decoder_init(&d);
    size_t fed = 0;
    size_t delivered = 0;
    const size_t starts[2] = {0, cut};
    const size_t ends[2] = {cut, size};
    for (int piece = 0; piece < 2; ++piece) {
        // Each feed in a buffer of its own, so a read past the end of what was given is seen.
        std::vector<uint8_t> bytes(data + starts[piece], data + ends[piece]);
        const uint8_t *p = bytes.data();
        size_t n = bytes.size();
        fed += n;
        for (;;) {
            size_t used = 0;
            ws_message m;
            const ws_status status = ws_decoder_feed(&d, p, n, &used, &m);
            if (used > n)
                broken("more bytes used than given");
            if (run.error && (status != WS_ERROR || d.error != run.error))
                broken("the decoder left its error");
            p += used;
            n -= used;
            if (status == WS_ERROR) {
                if (d.error != WS_CLOSE_PROTOCOL_ERROR && d.error != WS_CLOSE_TOO_BIG && d.error != WS_CLOSE_INTERNAL_ERROR)
                    broken("an error with an unexpected close code");
                if (!d.error_text || !*d.error_text)
                    broken("an error without a reason");
                run.error = d.error;
                break;
            }
            if (status == WS_NEED_MORE) {
                if (n != 0)
                    broken("more bytes wanted with bytes left");
                // Refused on the announced length: a frame still coming never takes a message over.
                if (d.in_payload && !isControl(d.opcode) && d.data_length + d.remaining > WS_MAX_MESSAGE)
                    broken("a frame taken that makes its message over 1 MiB");
                break;
            }
            check(m, fed, &delivered);
            run.messages.push_back({m.opcode, std::vector<uint8_t>(m.payload, m.payload + m.length), m.close_code});
        }
    }
    ws_decoder_free(&d);
    return run;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    initialise();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 256 * 1024)
        return 0;
    const uint8_t *rest = data + 1;
    const size_t length = size - 1;
    const size_t cut = data[0] % (length + 1);
    const Run whole = decode(rest, length, length);
    const Run split = decode(rest, length, cut);
    if (whole.error != split.error || whole.messages.size() != split.messages.size())
        broken("one feed and two feeds disagree");
    for (size_t i = 0; i < whole.messages.size(); ++i) {
        if (!same(whole.messages[i], split.messages[i]))
            broken("one feed and two feeds give different messages");
    }
    return 0;
}
