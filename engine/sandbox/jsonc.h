// JSON with comments (JSONC, as VS Code and devcontainer.json write it) turned into plain JSON for
// QJsonDocument: comments and trailing commas become spaces, everything else is left as it is.
#pragma once

#include "sandboxerror.h"

#include <QByteArray>
#include <QByteArrayView>

namespace isolation {

class Jsonc
{
public:
    // `//` line and `/* */` block comments outside strings, and a comma followed only by
    // whitespace or comments before `}` or `]`, are replaced by spaces (line breaks are kept, so
    // QJsonDocument's error offsets still point at the same place). A leading UTF-8 BOM is dropped.
    // Refused for an unterminated block comment or string. It does not validate the JSON itself.
    static Result<QByteArray, SandboxError> strip(QByteArrayView text);
};

} // namespace isolation
