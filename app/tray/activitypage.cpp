#include "activitypage.h"

#include "activitymodel.h"

#include "enginemodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSet>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace isolation {

namespace {
// Rows whose kind matches (empty: any) and whose text contains the search.
class ActivityFilter final : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QString kind;

    void refilter() { invalidateRowsFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        const QModelIndex index = sourceModel()->index(row, ActivityModel::Message, parent);
        if (!kind.isEmpty() && index.data(ActivityModel::KindRole).toString() != kind)
            return false;
        return QSortFilterProxyModel::filterAcceptsRow(row, parent);
    }
};
} // namespace

ActivityPage::ActivityPage(EngineModel &engine, QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("activityTab"));
    auto *layout = new QVBoxLayout(this);

    auto *filters = new QHBoxLayout;
    m_kind = new QComboBox(this);
    m_kind->setObjectName(QStringLiteral("activityKind"));
    m_kind->setAccessibleName(tr("Kind of event"));
    m_kind->addItem(tr("All events"), QString());
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("activitySearch"));
    m_search->setPlaceholderText(tr("Search events"));
    m_search->setAccessibleName(tr("Search events")); // a placeholder is not a name screen readers read
    m_search->setClearButtonEnabled(true);
    auto *kindLabel = new QLabel(tr("S&how:"), this);
    kindLabel->setBuddy(m_kind);
    filters->addWidget(kindLabel);
    filters->addWidget(m_kind);
    filters->addWidget(m_search, 1);
    layout->addLayout(filters);

    m_model = new ActivityModel(engine.activity(), this);
    auto *filter = new ActivityFilter(this);
    filter->setSourceModel(m_model);
    filter->setFilterKeyColumn(ActivityModel::Message);
    filter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter = filter;

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("activityView"));
    m_view->setAccessibleName(tr("Recent events"));
    m_view->setModel(m_filter);
    m_view->setTabKeyNavigation(false); // Tab leaves the table (arrows move within it)
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(ActivityModel::Time, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(ActivityModel::Kind, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_view, 1);

    // The kinds offered are the ones the log holds, so no choice shows an empty list.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ActivityPage::refreshKinds);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &ActivityPage::refreshKinds);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ActivityPage::refreshKinds);
    refreshKinds();
    connect(m_kind, &QComboBox::currentIndexChanged, this, &ActivityPage::applyFilter);
    connect(m_search, &QLineEdit::textChanged, this, &ActivityPage::applyFilter);
}

void ActivityPage::refreshKinds()
{
    QSet<QString> present;
    for (int row = 0; row < m_model->rowCount(); ++row)
        present.insert(m_model->index(row, ActivityModel::Kind).data(ActivityModel::KindRole).toString());
    QStringList kinds;
    for (const char *known : {"session", "save", "sync", "connection", "pairing", "runtime"}) {
        if (present.remove(QLatin1String(known)))
            kinds << QLatin1String(known);
    }
    QStringList others = present.values(); // kinds of a newer engine, after the known ones
    others.sort();
    kinds += others;
    QStringList shown;
    for (int i = 1; i < m_kind->count(); ++i)
        shown << m_kind->itemData(i).toString();
    if (shown == kinds)
        return;
    const QString current = m_kind->currentData().toString();
    const QSignalBlocker quiet(m_kind);
    while (m_kind->count() > 1)
        m_kind->removeItem(1);
    for (const QString &kind : std::as_const(kinds))
        m_kind->addItem(ActivityModel::kindText(kind), kind);
    const int again = m_kind->findData(current);
    m_kind->setCurrentIndex(again < 0 ? 0 : again);
    if (again < 0 && !current.isEmpty())
        applyFilter(); // the kind shown is gone (a log read again whole): show all
}

void ActivityPage::applyFilter()
{
    auto *filter = static_cast<ActivityFilter *>(m_filter);
    filter->kind = m_kind->currentData().toString();
    filter->setFilterFixedString(m_search->text());
    filter->refilter();
}

} // namespace isolation
