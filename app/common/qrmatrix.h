// QR codes for the pairing link: a module matrix from libqrencode, drawn by the tray as an image
// and by the CLI as text.
#pragma once

#include <QByteArray>
#include <QString>
#include <QVector>

namespace isolation {

struct QrMatrix
{
    int size = 0; // modules per side, without the quiet zone
    QVector<bool> modules; // row-major, true = dark

    bool dark(int x, int y) const { return x >= 0 && y >= 0 && x < size && y < size && modules.at(y * size + x); }
    bool isNull() const { return size == 0; }

    // Encodes `text` (medium error correction). A null matrix when it cannot be encoded.
    static QrMatrix encode(const QByteArray &text);
    // Two rows per line with half blocks, with a quiet zone; dark modules drawn light-on-dark
    // terminals can scan (inverted), as most terminal QR printers do.
    QString toTerminalText() const;
};

} // namespace isolation
