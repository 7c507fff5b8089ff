#include "qrmatrix.h"

#include <qrencode.h>

#include <memory>

namespace isolation {

QrMatrix QrMatrix::encode(const QByteArray &text)
{
    std::unique_ptr<QRcode, decltype(&QRcode_free)> code(
        QRcode_encodeString8bit(text.constData(), 0, QR_ECLEVEL_M), &QRcode_free);
    QrMatrix m;
    if (!code)
        return m;
    m.size = code->width;
    m.modules.resize(m.size * m.size);
    for (int i = 0; i < m.size * m.size; ++i)
        m.modules[i] = (code->data[i] & 1) != 0;
    return m;
}

QString QrMatrix::toTerminalText() const
{
    if (isNull())
        return {};
    const int quiet = 2;
    QString out;
    // Light modules are printed as blocks: on a dark terminal the code then reads dark-on-light.
    for (int y = -quiet; y < size + quiet; y += 2) {
        for (int x = -quiet; x < size + quiet; ++x) {
            const bool top = !dark(x, y);
            const bool bottom = !dark(x, y + 1) && (y + 1 < size + quiet);
            if (top && bottom)
                out += QChar(0x2588); // full block
            else if (top)
                out += QChar(0x2580); // upper half
            else if (bottom)
                out += QChar(0x2584); // lower half
            else
                out += QLatin1Char(' ');
        }
        out += QLatin1Char('\n');
    }
    return out;
}

} // namespace isolation
