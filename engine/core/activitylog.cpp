#include "activitylog.h"

namespace isolation {

ActivityLog::ActivityLog(QObject *parent)
    : QObject(parent)
{ }

void ActivityLog::record(const QString &kind, const QString &message)
{
    const bool full = m_entries.size() >= size_t(Capacity);
    if (full)
        m_entries.pop_front();
    m_entries.push_back({QDateTime::currentDateTimeUtc(), kind, message});
    Q_EMIT recorded(m_entries.back(), full);
}

} // namespace isolation
