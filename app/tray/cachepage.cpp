#include "cachepage.h"

#include "cache/warmcache.h"
#include "engine.h"
#include "sessions/sessionmanager.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QtConcurrent>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace isolation {

CachePage::CachePage(Engine &engine, QWidget *parent)
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
    connect(refresh, &QPushButton::clicked, this, &CachePage::reload);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this] {
        m_evict->setEnabled(
            !m_busy && m_list->currentItem() && m_list->currentItem()->data(3, Qt::UserRole).toBool() == false);
    });
    reload();
}

void CachePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    reload();
}

void CachePage::reload()
{
    SessionManager *sessions = m_engine.sessions();
    const QString keep = m_list->currentItem() ? m_list->currentItem()->data(0, Qt::UserRole).toString() : QString();
    m_list->clear();
    const QLocale locale;
    if (!sessions) {
        m_total->setText(tr("The engine is not running."));
    } else {
        const WarmCache &cache = sessions->cache();
        for (const CacheEntry &e : cache.list()) {
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
                .arg(locale.formattedDataSize(cache.totalBytes()), locale.formattedDataSize(cache.maxBytes())));
    }
    m_clear->setEnabled(!m_busy && m_list->topLevelItemCount() > 0);
    m_evict->setEnabled(
        !m_busy && m_list->currentItem() && m_list->currentItem()->data(3, Qt::UserRole).toBool() == false);
    m_evict->setToolTip(m_evict->isEnabled() ? QString() : tr("Choose a workspace that no session is using now"));
}

void CachePage::runOffThread(std::function<QString()> work)
{
    m_busy = true;
    reload();
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
        watcher->deleteLater();
        m_busy = false;
        m_status->setText(watcher->result());
        reload();
    });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

void CachePage::evict()
{
    SessionManager *sessions = m_engine.sessions();
    if (!sessions || !m_list->currentItem())
        return;
    const QString id = m_list->currentItem()->data(0, Qt::UserRole).toString();
    const QString name = m_list->currentItem()->text(0);
    WarmCache *cache = &sessions->cache();
    runOffThread([cache, id, name] {
        const Status s = cache->evict(id);
        return s ? tr("Evicted %1.").arg(name) : tr("%1 was not evicted: %2").arg(name, s.error().message);
    });
}

void CachePage::clear()
{
    SessionManager *sessions = m_engine.sessions();
    if (!sessions)
        return;
    WarmCache *cache = &sessions->cache();
    runOffThread([cache] {
        const QStringList kept = cache->clear();
        return kept.isEmpty() ? tr("The cache is empty.")
                              : tr("Cleared, except %n workspace(s) in use now.", nullptr, int(kept.size()));
    });
}

} // namespace isolation
