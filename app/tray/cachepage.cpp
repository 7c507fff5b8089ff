#include "cachepage.h"

#include "enginemodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QJsonArray>
#include <QPointer>
#include <QVBoxLayout>

namespace isolation {

CachePage::CachePage(EngineModel &engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
{
    setObjectName(QStringLiteral("cacheTab"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("A local copy of each workspace you worked on, so new sessions start without "
                                "downloading everything again. Deleting it loses nothing: the hub has every save."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_total = new QLabel(this);
    m_total->setObjectName(QStringLiteral("cacheTotal"));
    layout->addWidget(m_total);

    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("cacheList"));
    m_list->setAccessibleName(tr("Cached workspaces"));
    m_list->setHeaderLabels({tr("Workspace"), tr("Size"), tr("Last used"), tr("In use")});
    m_list->setRootIsDecorated(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(m_list, 1);

    auto *buttons = new QHBoxLayout;
    m_evict = new QPushButton(tr("&Evict"), this);
    m_evict->setObjectName(QStringLiteral("cacheEvict"));
    m_clear = new QPushButton(tr("C&lear all"), this);
    m_clear->setObjectName(QStringLiteral("cacheClear"));
    auto *refresh = new QPushButton(tr("Re&fresh"), this);
    buttons->addWidget(m_evict);
    buttons->addWidget(m_clear);
    buttons->addStretch(1);
    buttons->addWidget(refresh);
    layout->addLayout(buttons);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("cacheStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    connect(m_evict, &QPushButton::clicked, this, &CachePage::evict);
    connect(m_clear, &QPushButton::clicked, this, &CachePage::clear);
    connect(refresh, &QPushButton::clicked, &m_engine, &EngineModel::refreshCache);
    connect(&m_engine, &EngineModel::cacheChanged, this, &CachePage::reload);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] {
        m_evict->setEnabled(
            !m_busy && m_list->currentItem() && m_list->currentItem()->data(3, Qt::UserRole).toBool() == false);
    });
    reload();
}

void CachePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_engine.refreshCache(); // sizes change without an event
    reload();
}

void CachePage::reload()
{
    const api::Cache &cache = m_engine.cache();
    const QString keep = m_list->currentItem() ? m_list->currentItem()->data(0, Qt::UserRole).toString() : QString();
    m_list->clear();
    const QLocale locale;
    if (!m_engine.attached() || !cache.available) {
        m_total->setText(tr("The engine is not running."));
    } else {
        for (const api::CacheEntry &e : cache.workspaces) {
            auto *item = new QTreeWidgetItem(m_list);
            item->setText(0, e.name.isEmpty() ? e.workspaceId : e.name);
            item->setToolTip(0, e.workspaceId);
            item->setData(0, Qt::UserRole, e.workspaceId);
            item->setText(1, locale.formattedDataSize(e.bytes));
            item->setText(
                2, e.lastUsed.isValid() ? locale.toString(e.lastUsed.toLocalTime(), QLocale::ShortFormat) : QString());
            item->setText(3, e.inUse ? tr("yes") : tr("no"));
            item->setData(3, Qt::UserRole, e.inUse);
            if (e.workspaceId == keep)
                m_list->setCurrentItem(item);
        }
        m_total->setText(
            tr("%n workspace(s), %1 of at most %2", nullptr, m_list->topLevelItemCount())
                .arg(locale.formattedDataSize(cache.bytes), locale.formattedDataSize(cache.maxBytes)));
    }
    m_clear->setEnabled(!m_busy && m_list->topLevelItemCount() > 0);
    m_evict->setEnabled(
        !m_busy && m_list->currentItem() && m_list->currentItem()->data(3, Qt::UserRole).toBool() == false);
    m_evict->setToolTip(m_evict->isEnabled() ? QString() : tr("Choose a workspace that no session is using now"));
}

void CachePage::ask(const QString &path, const QJsonObject &body, std::function<QString(const QJsonObject &)> said,
    std::function<QString(const QString &)> failed)
{
    m_busy = true;
    reload();
    QPointer<CachePage> self(this);
    m_engine.client().post(path, body, [self, said, failed](EngineClient::Answer r) {
        if (!self)
            return;
        self->m_busy = false;
        self->m_status->setText(r ? said(r.value()) : failed(describe(r.error())));
        self->m_engine.refreshCache();
    });
}

void CachePage::evict()
{
    if (!m_engine.attached() || !m_list->currentItem())
        return;
    const QString id = m_list->currentItem()->data(0, Qt::UserRole).toString();
    const QString name = m_list->currentItem()->text(0);
    ask(QStringLiteral("/v1/cache/evict"), QJsonObject {{QStringLiteral("workspace"), id}},
        [name](const QJsonObject &) { return tr("Evicted %1.").arg(name); },
        [name](const QString &why) { return tr("%1 was not evicted: %2").arg(name, why); });
}

void CachePage::clear()
{
    if (!m_engine.attached())
        return;
    ask(QStringLiteral("/v1/cache/clear"), {},
        [](const QJsonObject &answer) {
            const int kept = int(answer.value(QStringLiteral("kept")).toArray().size());
            return kept == 0 ? tr("The cache is empty.")
                             : tr("Cleared, except %n workspace(s) in use now.", nullptr, kept);
        },
        [](const QString &why) { return why; });
}

} // namespace isolation
