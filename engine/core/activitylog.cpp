#include "activitylog.h"

namespace isolation {

ActivityLog::ActivityLog(QObject *parent)
    : QObject(parent)
{ }

void ActivityLog::record(const QString &kind, const QString &message)
{
    append({QDateTime::currentDateTimeUtc(), kind, message});
}

void ActivityLog::append(const ActivityEntry &entry)
{
    const bool full = m_entries.size() >= size_t(Capacity);
    if (full)
        m_entries.pop_front();
    m_entries.push_back(entry);
    Q_EMIT recorded(m_entries.back(), full);
}

void ActivityLog::clear()
{
    m_entries.clear();
    Q_EMIT cleared();
}

} // namespace isolation
