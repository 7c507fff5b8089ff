// WebSocket framing (RFC 6455 §5) for the tunnel: a reader that turns bytes from the peer into
// whole messages and checks every rule of §5 for the role it reads as, and a writer of frames.
// No extensions (RSV bits are always zero) and no subprotocol; docs/protocol.md, "Framing".
//
// Why not QtWebSockets (which it replaces on the tunnel): QWebSocket masks and unmasks payloads
// one byte at a time, which on the views benchmark was a third of the CPU of each end of the
// tunnel (36 000 instructions per proxied request on each side, bench/README.md). Masking here
// goes eight bytes at a time. QtWebSockets stays in the tests as the peer this code must agree
// with.
#pragma once

#include <QByteArray>
#include <QString>

#include <array>

namespace isolation::websocket {

enum class Opcode : quint8 {
    Continuation = 0x0,
    Text = 0x1,
    Binary = 0x2,
    Close = 0x8,
    Ping = 0x9,
    Pong = 0xA,
};

// Close codes this code sends or checks (RFC 6455 §7.4.1).
enum CloseCode : quint16 {
    CloseNormal = 1000,
    CloseGoingAway = 1001,
    CloseProtocolError = 1002,
    CloseUnsupportedData = 1003,
    CloseNoStatus = 1005, // never sent: "the close frame had no code"
    CloseAbnormal = 1006, // never sent: "the connection went without a close frame"
    CloseInvalidPayload = 1007,
    CloseTooBig = 1009,
};

using MaskKey = std::array<quint8, 4>;

// XORs `size` bytes at `data` with the masking key, byte i with key[i % 4] (§5.3). Its own inverse.
void applyMask(char *data, qsizetype size, MaskKey key);

// One frame with FIN set: the header, then `payload`, masked with `*key` when `key` is given (what
// a client sends) and as it is otherwise (a server). One allocation, one pass over the payload.
QByteArray encodeFrame(Opcode opcode, QByteArrayView payload, const MaskKey *key);
// A close frame's payload: the code (two bytes, network order) and the reason, cut to fit the
// 125 bytes of a control frame at a UTF-8 character boundary.
QByteArray closePayload(quint16 code, const QString &reason);
// A close code a peer may send (§7.4): 1000-1003, 1007-1011, 3000-4999.
bool validCloseCode(quint16 code);

// Reads frames as the role given (a server requires masked frames, a client refuses them) into
// whole messages: data messages (binary or text, reassembled from fragments) and control frames
// (close, ping, pong), which may come between the fragments of a data message.
class FrameReader
{
public:
    enum class Role { Client, Server };
    enum class Status { NeedMore, Message, Error };

    struct Message
    {
        Opcode opcode = Opcode::Binary;
        // Valid until the next append(): a view into the reader's buffer for a message that came in
        // one frame, an array of its own for a reassembled one.
        QByteArray payload;
        quint16 closeCode = CloseNoStatus; // Close: the peer's code (CloseNoStatus without one)
        QString closeReason; // Close: the peer's reason
    };

    FrameReader(Role role, quint64 maxMessageSize);

    // Bytes read from the peer, in order.
    void append(QByteArray &&bytes);
    void append(QByteArrayView bytes);
    // The next message, if the bytes for it are in. After Error the reader stays in error: the
    // connection is to be closed with errorCode() (a code to send) and errorText() (for a log).
    Status next(Message *message);

    quint16 errorCode() const { return m_errorCode; }
    QString errorText() const { return m_errorText; }
    qsizetype buffered() const { return m_in.size() - m_pos; }

private:
    Status fail(quint16 code, QString text);
    // next()'s parts: why a frame's first two bytes are refused (empty: they are fine), and a
    // control frame's payload read into `message`.
    QString refusedHead(quint8 byte0, quint8 byte1) const;
    Status control(Opcode opcode, QByteArrayView payload, Message *message);

    Role m_role;
    quint64 m_max;
    QByteArray m_in;
    qsizetype m_pos = 0;
    // A fragmented data message under way.
    bool m_fragmented = false;
    Opcode m_fragmentOpcode = Opcode::Binary;
    QByteArray m_fragments;
    quint16 m_errorCode = 0;
    QString m_errorText;
};

} // namespace isolation::websocket
