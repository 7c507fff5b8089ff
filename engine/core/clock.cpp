#include "clock.h"

#include <QDateTime>

namespace isolation {

qint64 SystemClock::monotonicMs() const
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

qint64 SystemClock::unixSeconds() const
{
    return QDateTime::currentSecsSinceEpoch();
}

} // namespace isolation
