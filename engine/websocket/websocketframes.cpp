#include "websocketframes.h"

#include <QStringDecoder>

#include <cstring>

namespace isolation::websocket {

namespace {

constexpr quint8 FinBit = 0x80;
constexpr quint8 RsvBits = 0x70;
constexpr quint8 OpcodeBits = 0x0F;
constexpr quint8 MaskBit = 0x80;
constexpr qsizetype MaxControlPayload = 125;

// Masks `n` bytes from `src` into `dst` (which may be `src`): whole words first. The key's four
// bytes repeat in memory order whatever the machine's byte order, since the key and the data are
// both taken from memory the same way.
void maskInto(char *dst, const char *src, qsizetype n, MaskKey key)
{
    quint32 k32 = 0;
    std::memcpy(&k32, key.data(), 4);
    const quint64 k = quint64(k32) | (quint64(k32) << 32);
    qsizetype i = 0;
    for (; i + 32 <= n; i += 32) {
        quint64 w[4];
        std::memcpy(w, src + i, 32);
        w[0] ^= k;
        w[1] ^= k;
        w[2] ^= k;
        w[3] ^= k;
        std::memcpy(dst + i, w, 32);
    }
    for (; i + 8 <= n; i += 8) {
        quint64 w;
        std::memcpy(&w, src + i, 8);
        w ^= k;
        std::memcpy(dst + i, &w, 8);
    }
    for (; i < n; ++i) // i is a multiple of 8 here plus the rest: the key's phase is i % 4
        dst[i] = char(quint8(src[i]) ^ key[size_t(i & 3)]);
}

bool isControl(Opcode opcode)
{
    return (quint8(opcode) & 0x08) != 0;
}

bool knownOpcode(quint8 opcode)
{
    return opcode <= 0x2 || (opcode >= 0x8 && opcode <= 0xA);
}

bool validUtf8(QByteArrayView bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString decoded = decoder(bytes);
    Q_UNUSED(decoded);
    return !decoder.hasError();
}

} // namespace

void applyMask(char *data, qsizetype size, MaskKey key)
{
    maskInto(data, data, size, key);
}

QByteArray encodeFrame(Opcode opcode, QByteArrayView payload, const MaskKey *key)
{
    const auto n = quint64(payload.size());
    const qsizetype lengthBytes = n < 126 ? 0 : n <= 0xFFFF ? 2 : 8;
    const qsizetype head = 2 + lengthBytes + (key ? 4 : 0);
    QByteArray frame(head + payload.size(), Qt::Uninitialized);
    auto *out = reinterpret_cast<quint8 *>(frame.data());
    out[0] = FinBit | quint8(opcode);
    const quint8 mask = key ? MaskBit : 0;
    if (lengthBytes == 0) {
        out[1] = mask | quint8(n);
    } else if (lengthBytes == 2) {
        out[1] = mask | 126;
        out[2] = quint8(n >> 8);
        out[3] = quint8(n);
    } else {
        out[1] = mask | 127;
        for (int i = 0; i < 8; ++i)
            out[2 + i] = quint8(n >> (8 * (7 - i)));
    }
    char *body = frame.data() + head;
    if (key) {
        std::memcpy(out + 2 + lengthBytes, key->data(), 4);
        maskInto(body, payload.data(), payload.size(), *key);
    } else if (!payload.isEmpty()) {
        std::memcpy(body, payload.data(), size_t(payload.size()));
    }
    return frame;
}

QByteArray closePayload(quint16 code, const QString &reason)
{
    QByteArray text = reason.toUtf8();
    if (text.size() > MaxControlPayload - 2) {
        qsizetype cut = MaxControlPayload - 2;
        while (cut > 0 && (quint8(text.at(cut)) & 0xC0) == 0x80)
            --cut; // not inside a character
        text.truncate(cut);
    }
    QByteArray payload;
    payload.reserve(2 + text.size());
    payload.append(char(code >> 8));
    payload.append(char(code & 0xFF));
    payload.append(text);
    return payload;
}

bool validCloseCode(quint16 code)
{
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011) || (code >= 3000 && code <= 4999);
}

FrameReader::FrameReader(Role role, quint64 maxMessageSize)
    : m_role(role)
    , m_max(maxMessageSize)
{ }

void FrameReader::append(QByteArray &&bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_pos == m_in.size()) {
        m_in = std::move(bytes);
        m_pos = 0;
        return;
    }
    append(QByteArrayView(bytes));
}

void FrameReader::append(QByteArrayView bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_pos > 0) {
        m_in.remove(0, m_pos);
        m_pos = 0;
    }
    m_in.append(bytes);
}

FrameReader::Status FrameReader::fail(quint16 code, QString text)
{
    m_errorCode = code;
    m_errorText = std::move(text);
    m_in.clear();
    m_pos = 0;
    m_fragments.clear();
    return Status::Error;
}

QString FrameReader::refusedHead(quint8 byte0, quint8 byte1) const
{
    const bool fin = (byte0 & FinBit) != 0;
    const quint8 op = byte0 & OpcodeBits;
    const bool masked = (byte1 & MaskBit) != 0;
    const quint8 length7 = byte1 & 0x7F;
    if ((byte0 & RsvBits) != 0)
        return QStringLiteral("a frame with reserved bits set (no extension was agreed)");
    if (!knownOpcode(op))
        return QStringLiteral("a frame with the unknown opcode %1").arg(op);
    const auto opcode = Opcode(op);
    if (isControl(opcode) && (!fin || length7 > MaxControlPayload))
        return QStringLiteral("a control frame fragmented or over 125 bytes");
    if (masked != (m_role == Role::Server))
        return m_role == Role::Server ? QStringLiteral("an unmasked frame from the client")
                                      : QStringLiteral("a masked frame from the server");
    if (opcode == Opcode::Continuation && !m_fragmented)
        return QStringLiteral("a continuation frame with no message to continue");
    if ((opcode == Opcode::Text || opcode == Opcode::Binary) && m_fragmented)
        return QStringLiteral("a new message before the last one ended");
    return {};
}

FrameReader::Status FrameReader::control(Opcode opcode, QByteArrayView payload, Message *message)
{
    *message = Message {};
    if (opcode == Opcode::Close) {
        if (payload.size() == 1)
            return fail(CloseProtocolError, QStringLiteral("a close frame of one byte"));
        if (payload.size() >= 2) {
            const auto code = quint16((quint8(payload[0]) << 8) | quint8(payload[1]));
            if (!validCloseCode(code))
                return fail(CloseProtocolError, QStringLiteral("a close frame with the code %1").arg(code));
            const QByteArrayView reason = payload.sliced(2);
            if (!validUtf8(reason))
                return fail(CloseInvalidPayload, QStringLiteral("a close reason that is not UTF-8"));
            message->closeCode = code;
            message->closeReason = QString::fromUtf8(reason);
        }
    }
    message->opcode = opcode;
    message->payload = QByteArray::fromRawData(payload.data(), payload.size());
    return Status::Message;
}

FrameReader::Status FrameReader::next(Message *message)
{
    if (m_errorCode != 0)
        return Status::Error;
    for (;;) {
        const qsizetype have = m_in.size() - m_pos;
        if (have < 2)
            return Status::NeedMore;
        const auto *p = reinterpret_cast<const quint8 *>(m_in.constData() + m_pos);
        if (const QString why = refusedHead(p[0], p[1]); !why.isEmpty())
            return fail(CloseProtocolError, why);
        const bool fin = (p[0] & FinBit) != 0;
        const auto opcode = Opcode(p[0] & OpcodeBits);
        const bool masked = (p[1] & MaskBit) != 0;
        const quint8 length7 = p[1] & 0x7F;

        const qsizetype lengthBytes = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
        const qsizetype head = 2 + lengthBytes + (masked ? 4 : 0);
        if (have < head)
            return Status::NeedMore;
        quint64 length = length7;
        if (lengthBytes > 0) {
            length = 0;
            for (qsizetype i = 0; i < lengthBytes; ++i)
                length = (length << 8) | p[2 + i];
            if (length >> 63)
                return fail(CloseProtocolError, QStringLiteral("a frame length with its top bit set"));
        }
        const quint64 sofar = m_fragmented ? quint64(m_fragments.size()) : 0;
        if (!isControl(opcode) && (length > m_max || sofar + length > m_max))
            return fail(CloseTooBig, QStringLiteral("a message over %1 bytes").arg(m_max));
        if (quint64(have - head) < length)
            return Status::NeedMore;

        MaskKey key {};
        if (masked)
            std::memcpy(key.data(), p + 2 + lengthBytes, 4);
        const qsizetype start = m_pos + head;
        const auto size = qsizetype(length);
        m_pos = start + size;
        if (masked && size > 0)
            applyMask(m_in.data() + start, size, key); // detaches at most once: the buffer is ours
        const QByteArrayView payload(m_in.constData() + start, size);

        if (isControl(opcode))
            return control(opcode, payload, message);

        if (!fin) {
            if (!m_fragmented) {
                m_fragmented = true;
                m_fragmentOpcode = opcode;
                m_fragments.clear();
            }
            m_fragments.append(payload);
            continue;
        }
        *message = Message {};
        if (m_fragmented) {
            m_fragments.append(payload);
            m_fragmented = false;
            message->opcode = m_fragmentOpcode;
            message->payload = std::exchange(m_fragments, {});
        } else {
            message->opcode = opcode;
            message->payload = QByteArray::fromRawData(payload.data(), payload.size());
        }
        if (message->opcode == Opcode::Text && !validUtf8(message->payload)) {
            *message = Message {};
            return fail(CloseInvalidPayload, QStringLiteral("a text message that is not UTF-8"));
        }
        return Status::Message;
    }
}

} // namespace isolation::websocket
