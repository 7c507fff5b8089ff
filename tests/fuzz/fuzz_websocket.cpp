// libFuzzer target: the tunnel's WebSocket reading (engine/websocket/websocketframes,
// websockethandshake), the bytes a hub or a server on the other end of the tunnel sends. The first
// byte chooses the role the frames are read as (bit 0 clear: a server, which takes only masked
// frames; set: a client, which takes only unmasked ones) and how the rest is cut into appends
// (the byte >> 1: chunks of that many bytes, 0 for one append). The rest goes to a FrameReader
// with a 64 KiB message limit, drained after each append, and in the same chunks to a
// HandshakeReader waiting for the answer to RFC 6455's example key.
// Invariants: a data message is never over the limit nor bigger than the bytes fed, a text one
// is UTF-8; a control message's payload is at most 125 bytes; a close message has a code a peer
// may send (or 1005 and no payload) and the reason its payload holds; every message, encoded again
// (masked for a server), reads back the same in a fresh reader; an error is 1002, 1007 or 1009 and
// stays; the handshake is accepted only for a 101 holding the accept value, with rest() the tail
// of what was fed; nothing crashes or leaks.
#include "fuzzsupport.h"
#include "websocket/websocketframes.h"
#include "websocket/websockethandshake.h"

#include <cstddef>
#include <cstdint>

using namespace isolation;
using namespace isolation::fuzz;
using websocket::FrameReader;
using websocket::HandshakeReader;
using websocket::Opcode;

namespace {

constexpr quint64 kLimit = 64 * 1024;
const QByteArray kKey = "dGhlIHNhbXBsZSBub25jZQ=="; // RFC 6455 §1.3
const websocket::MaskKey kMask {0x5a, 0x01, 0xc3, 0x7e};

// UTF-8 as RFC 3629 has it, written out here rather than asked of Qt: shortest forms only, no
// surrogates, nothing above U+10FFFF.
bool strictUtf8(QByteArrayView s)
{
    qsizetype i = 0;
    while (i < s.size()) {
        const auto c = quint8(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        int length = 0;
        quint32 cp = 0;
        quint32 least = 0;
        if ((c & 0xE0) == 0xC0) {
            length = 2, cp = c & 0x1F, least = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            length = 3, cp = c & 0x0F, least = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            length = 4, cp = c & 0x07, least = 0x10000;
        } else {
            return false;
        }
        if (i + length > s.size())
            return false;
        for (int k = 1; k < length; ++k) {
            const auto b = quint8(s[i + k]);
            if ((b & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += length;
    }
    return true;
}

bool isControl(Opcode opcode)
{
    return opcode == Opcode::Close || opcode == Opcode::Ping || opcode == Opcode::Pong;
}

// The message encoded again as one frame reads back the same in a fresh reader, with nothing left.
void readsBack(FrameReader::Role role, const FrameReader::Message &m)
{
    const QByteArray frame
        = websocket::encodeFrame(m.opcode, m.payload, role == FrameReader::Role::Server ? &kMask : nullptr);
    FrameReader again(role, kLimit);
    again.append(QByteArrayView(frame));
    FrameReader::Message back;
    if (again.next(&back) != FrameReader::Status::Message)
        broken("a message read, encoded again, does not read back");
    if (back.opcode != m.opcode || back.payload != m.payload)
        broken("a message read, encoded again, reads back different");
    if (back.closeCode != m.closeCode || back.closeReason != m.closeReason)
        broken("a close message, encoded again, reads back with another code or reason");
    if (again.next(&back) != FrameReader::Status::NeedMore || again.buffered() != 0)
        broken("a message encoded again leaves bytes behind");
}

void check(FrameReader::Role role, const FrameReader::Message &m, qsizetype fed, qsizetype *delivered)
{
    const QByteArray &p = m.payload;
    switch (m.opcode) {
    case Opcode::Binary:
    case Opcode::Text:
        if (quint64(p.size()) > kLimit)
            broken("a data message over the limit");
        *delivered += p.size();
        if (*delivered > fed)
            broken("more payload delivered than bytes fed");
        if (m.opcode == Opcode::Text && !strictUtf8(p))
            broken("a text message that is not UTF-8");
        if (m.closeCode != websocket::CloseNoStatus || !m.closeReason.isEmpty())
            broken("a data message with a close code or reason");
        break;
    case Opcode::Close:
        if (m.closeCode == websocket::CloseNoStatus) {
            if (!p.isEmpty() || !m.closeReason.isEmpty())
                broken("a close message without a code but with a payload");
        } else {
            if (!websocket::validCloseCode(m.closeCode))
                broken("a close message with a code a peer may not send");
            if (p.size() < 2 || quint16((quint8(p[0]) << 8) | quint8(p[1])) != m.closeCode)
                broken("a close code that is not the payload's");
            if (!strictUtf8(p.sliced(2)) || m.closeReason != QString::fromUtf8(p.sliced(2)))
                broken("a close reason that is not the payload's UTF-8");
        }
        break;
    case Opcode::Ping:
    case Opcode::Pong:
        if (m.closeCode != websocket::CloseNoStatus || !m.closeReason.isEmpty())
            broken("a ping or pong with a close code or reason");
        break;
    case Opcode::Continuation:
        broken("a continuation delivered as a message");
    }
    if (isControl(m.opcode) && p.size() > 125)
        broken("a control message over 125 bytes");
    readsBack(role, m);
}

void readFrames(FrameReader::Role role, QByteArrayView input, qsizetype chunk)
{
    FrameReader reader(role, kLimit);
    qsizetype fed = 0;
    qsizetype delivered = 0;
    bool failed = false;
    int index = 0;
    while (fed < input.size()) {
        const qsizetype n = chunk == 0 ? input.size() : qMin(chunk, input.size() - fed);
        const QByteArrayView piece = input.sliced(fed, n);
        if (index++ % 2 == 0)
            reader.append(piece);
        else
            reader.append(piece.toByteArray());
        fed += n;
        for (;;) {
            FrameReader::Message m;
            const auto status = reader.next(&m);
            if (failed && status != FrameReader::Status::Error)
                broken("the reader left its error");
            if (status == FrameReader::Status::NeedMore)
                break;
            if (status == FrameReader::Status::Error) {
                const quint16 code = reader.errorCode();
                if (code != websocket::CloseProtocolError && code != websocket::CloseInvalidPayload
                    && code != websocket::CloseTooBig)
                    broken("an error with an unexpected close code");
                if (reader.errorText().isEmpty())
                    broken("an error without a reason");
                if (reader.next(&m) != FrameReader::Status::Error || reader.errorCode() != code)
                    broken("next() after an error did not give the same error");
                failed = true;
                break;
            }
            check(role, m, fed, &delivered);
        }
    }
}

void readHandshake(QByteArrayView input, qsizetype chunk)
{
    HandshakeReader reader(kKey);
    qsizetype fed = 0;
    auto status = HandshakeReader::Status::NeedMore;
    while (fed < input.size() && status == HandshakeReader::Status::NeedMore) {
        const qsizetype n = chunk == 0 ? input.size() : qMin(chunk, input.size() - fed);
        status = reader.feed(input.sliced(fed, n));
        fed += n;
    }
    const QByteArrayView seen = input.first(fed);
    switch (status) {
    case HandshakeReader::Status::NeedMore:
        return;
    case HandshakeReader::Status::Accepted: {
        const QByteArray rest = reader.rest();
        if (reader.status() != 101)
            broken("accepted without a 101");
        if (rest.size() > input.size() || rest.size() > seen.size() || !seen.endsWith(rest))
            broken("rest() is not the tail of what was fed");
        if (!seen.contains(websocket::acceptFor(kKey)))
            broken("accepted without the accept value");
        break;
    }
    case HandshakeReader::Status::Refused:
        // A whole answer with a final status that is not 101 (anything else is an Error).
        if (reader.status() < 200 || reader.status() > 599)
            broken("refused with a status that is not a final answer's");
        break;
    case HandshakeReader::Status::Error:
        if (reader.errorText().isEmpty())
            broken("a handshake error without a reason");
        break;
    }
    const QByteArray more = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";
    if (reader.feed(more) != status)
        broken("the handshake's outcome changed after it was decided");
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
    const auto role = data[0] % 2 == 0 ? FrameReader::Role::Server : FrameReader::Role::Client;
    const qsizetype chunk = data[0] >> 1;
    const QByteArrayView rest(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    readFrames(role, rest, chunk);
    readHandshake(rest, chunk);
    return 0;
}
