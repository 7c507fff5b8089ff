// What the WebSocket tests share: the RFC's example key, bytes that show a
// misplaced or mis-masked byte, and WebSocket frames written out by hand, independent of the
// engine's encodeFrame.
#pragma once

#include "websocket/websocketframes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <optional>

namespace isolation::test {

constexpr int kTimeoutMs = 5000;
// The mask key of the frames written by hand.
inline const websocket::MaskKey kKey {0x37, 0xfa, 0x21, 0x3d};
// RFC 6455 §1.3: the key, and the accept value the RFC gives for it (SHA-1 b37a4f2c...b2bec4ea).
inline const QByteArray kRfcKey = "dGhlIHNhbXBsZSBub25jZQ==";
inline const QByteArray kRfcAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
// Message sizes around each length form's edges, and one over 256 KiB.
inline const QList<qsizetype> kSizes {0, 1, 125, 126, 65535, 65536, 300000};

// Bytes that differ from one position to the next (and from one seed to another), so a byte
// masked with the wrong key byte, moved or dropped shows.
inline QByteArray pattern(qsizetype n, quint32 seed = 1)
{
    QByteArray out(n, Qt::Uninitialized);
    quint32 x = seed * 2654435761u + 12345u;
    for (qsizetype i = 0; i < n; ++i) {
        x = x * 1103515245u + 12345u;
        out[i] = char(x >> 24);
    }
    return out;
}

// RFC 6455 §5.3 as written: byte i XOR key[i mod 4].
inline void referenceMask(char *data, qsizetype n, websocket::MaskKey key)
{
    for (qsizetype i = 0; i < n; ++i)
        data[i] = char(quint8(data[i]) ^ key[size_t(i % 4)]);
}

// A frame written out by hand, independent of encodeFrame: `first` is the first byte as sent
// (FIN, RSV bits, opcode); the length in its shortest form unless `form` is 16 or 64; `announced`
// replaces the payload's length in the header (a header that promises more than follows).
inline QByteArray rawFrame(
    quint8 first, QByteArrayView payload, bool masked, int form = 0, std::optional<quint64> announced = std::nullopt)
{
    const quint64 n = announced.value_or(quint64(payload.size()));
    if (form == 0)
        form = n < 126 ? 7 : n <= 0xFFFF ? 16 : 64;
    QByteArray out;
    out.append(char(first));
    const quint8 maskBit = masked ? 0x80 : 0x00;
    if (form == 7) {
        out.append(char(maskBit | quint8(n)));
    } else if (form == 16) {
        out.append(char(maskBit | 126));
        out.append(char(n >> 8));
        out.append(char(n & 0xFF));
    } else {
        out.append(char(maskBit | 127));
        for (int shift = 56; shift >= 0; shift -= 8)
            out.append(char((n >> shift) & 0xFF));
    }
    QByteArray body = payload.toByteArray();
    if (masked) {
        out.append(reinterpret_cast<const char *>(kKey.data()), 4);
        referenceMask(body.data(), body.size(), kKey);
    }
    return out + body;
}

inline QByteArray closeBody(quint16 code, QByteArrayView reason = {})
{
    QByteArray out;
    out.append(char(code >> 8));
    out.append(char(code & 0xFF));
    out.append(reason);
    return out;
}

} // namespace isolation::test
