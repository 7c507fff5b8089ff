#include "eventdispatcher.h"

#include <QByteArray>
#include <QtGlobal>

namespace isolation::detail {

bool setNoGlib()
{
    if (qEnvironmentVariableIsSet("QT_NO_GLIB"))
        return false;
    qputenv("QT_NO_GLIB", QByteArray("1"));
    return true;
}

void unsetNoGlib()
{
    qunsetenv("QT_NO_GLIB");
}

} // namespace isolation::detail
