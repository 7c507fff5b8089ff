#include "sessionlimits.h"

#include <QRegularExpression>

namespace isolation {

bool hasSessionIdShape(const QString &id)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
    return pattern.match(id).hasMatch() && !id.contains(QLatin1String("..")) && !id.endsWith(QLatin1String(".lock"));
}

} // namespace isolation
