#include "jsonc.h"

namespace isolation {

Result<QByteArray, SandboxError> Jsonc::strip(QByteArrayView text)
{
    if (text.startsWith("\xEF\xBB\xBF"))
        text = text.sliced(3);
    QByteArray out(text.data(), text.size());
    const qsizetype n = out.size();
    qsizetype pendingComma = -1; // a comma that only whitespace and comments have followed so far
    qsizetype i = 0;
    auto blank = [&out](qsizetype from, qsizetype to) {
        for (qsizetype k = from; k < to; ++k) {
            if (out[k] != '\n' && out[k] != '\r')
                out[k] = ' ';
        }
    };
    while (i < n) {
        const char c = out[i];
        if (c == '"') {
            pendingComma = -1;
            qsizetype j = i + 1;
            while (j < n && out[j] != '"')
                j += out[j] == '\\' ? 2 : 1;
            if (j >= n)
                return SandboxError::refused(QStringLiteral("unterminated string at offset %1").arg(i));
            i = j + 1;
        } else if (c == '/' && i + 1 < n && out[i + 1] == '/') {
            qsizetype j = i;
            while (j < n && out[j] != '\n')
                ++j;
            blank(i, j);
            i = j;
        } else if (c == '/' && i + 1 < n && out[i + 1] == '*') {
            const qsizetype end = out.indexOf("*/", i + 2);
            if (end < 0)
                return SandboxError::refused(QStringLiteral("unterminated comment at offset %1").arg(i));
            blank(i, end + 2);
            i = end + 2;
        } else if (c == ',') {
            pendingComma = i++;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
        } else {
            if ((c == '}' || c == ']') && pendingComma >= 0)
                out[pendingComma] = ' ';
            pendingComma = -1;
            ++i;
        }
    }
    return out;
}

} // namespace isolation
