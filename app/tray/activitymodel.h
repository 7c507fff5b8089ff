// The engine's activity log as a table for views: newest first; columns time, kind, message.
#pragma once

#include "core/activitylog.h"

#include <QAbstractTableModel>

#include <deque>

namespace isolation {

class ActivityModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Time, Kind, Message, ColumnCount };
    static constexpr int KindRole = Qt::UserRole + 1; // the stable kind id ("runtime", ...)

    // Shows what `log` holds now and follows it.
    explicit ActivityModel(ActivityLog &log, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The translated name of a kind; unknown kinds show as they are.
    static QString kindText(const QString &kind);

private:
    void onRecorded(const ActivityEntry &entry, bool droppedOldest);

    std::deque<ActivityEntry> m_entries; // a copy, newest first, changed only between begin/end calls
};

} // namespace isolation
