#include "eventdispatcher.h"

#include <QByteArray>
#include <QtGlobal>

namespace isolation {

void preferUnixEventDispatcher()
{
    if (!qEnvironmentVariableIsSet("QT_NO_GLIB"))
        qputenv("QT_NO_GLIB", QByteArray("1"));
}

} // namespace isolation
