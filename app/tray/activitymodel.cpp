#include "activitymodel.h"

#include "core/activitylog.h"

#include <QLocale>

namespace isolation {

ActivityModel::ActivityModel(ActivityLog &log, QObject *parent)
    : QAbstractTableModel(parent)
{
    for (const ActivityEntry &e : log.entries())
        m_entries.push_front(e);
    connect(&log, &ActivityLog::recorded, this, &ActivityModel::onRecorded);
    connect(&log, &ActivityLog::cleared, this, [this] {
        beginResetModel();
        m_entries.clear();
        endResetModel();
    });
}

int ActivityModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int ActivityModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ActivityModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_entries.size()))
        return {};
    const ActivityEntry &e = m_entries[size_t(index.row())];
    if (role == KindRole)
        return e.kind;
    if (role == Qt::ToolTipRole && index.column() == Message)
        return e.message;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Time:
        return QLocale().toString(e.time.toLocalTime(), QLocale::ShortFormat);
    case Kind:
        return kindText(e.kind);
    case Message:
        return e.message;
    default:
        return {};
    }
}

QVariant ActivityModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Time:
        return tr("Time");
    case Kind:
        return tr("Kind");
    case Message:
        return tr("Event");
    default:
        return {};
    }
}

QString ActivityModel::kindText(const QString &kind)
{
    if (kind == QLatin1String("connection"))
        return tr("Connection");
    if (kind == QLatin1String("pairing"))
        return tr("Pairing");
    if (kind == QLatin1String("runtime"))
        return tr("Runtime");
    if (kind == QLatin1String("save"))
        return tr("Save");
    if (kind == QLatin1String("sync"))
        return tr("Sync");
    if (kind == QLatin1String("session"))
        return tr("Session");
    return kind;
}

void ActivityModel::onRecorded(const ActivityEntry &entry, bool droppedOldest)
{
    if (droppedOldest && !m_entries.empty()) {
        const int last = int(m_entries.size()) - 1;
        beginRemoveRows({}, last, last);
        m_entries.pop_back();
        endRemoveRows();
    }
    beginInsertRows({}, 0, 0);
    m_entries.push_front(entry);
    endInsertRows();
}

} // namespace isolation
