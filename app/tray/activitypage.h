// The Activity tab: the engine's recent events, newest first, filterable by kind and text.
#pragma once

#include <QWidget>

class QComboBox;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace isolation {

class ActivityModel;
class EngineModel;

class ActivityPage final : public QWidget
{
    Q_OBJECT
public:
    explicit ActivityPage(EngineModel &engine, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }

private:
    void applyFilter();
    void refreshKinds();

    ActivityModel *m_model = nullptr;
    QSortFilterProxyModel *m_filter = nullptr;
    QComboBox *m_kind = nullptr;
    QLineEdit *m_search = nullptr;
    QTableView *m_view = nullptr;
};

} // namespace isolation
