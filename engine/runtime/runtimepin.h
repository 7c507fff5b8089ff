// The pinned runtime (resources/runtime-pin.json): which OpenSandbox lifecycle server and execd
// images this engine runs, and digests they must have when the pin names them.
#pragma once

#include "core/result.h"

#include <QHash>
#include <QString>

namespace isolation {

struct RuntimePin
{
    QString opensandbox; // the OpenSandbox version or commit the specs come from
    QString lifecycleImage;
    QString execdImage;
    QHash<QString, QString> digests; // image -> "sha256:..." (image id or repository digest)

    // The pin compiled into the engine.
    static RuntimePin builtIn();
    static Result<RuntimePin> fromFile(const QString &path);
    static Result<RuntimePin> fromJson(const QByteArray &json);
};

} // namespace isolation
