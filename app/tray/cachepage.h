// The Warm cache tab: the workspaces cached on this computer for fast session starts — size,
// last use — with Evict and Clear, the total and the cap. Deleting runs off the GUI thread.
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace isolation {

class Engine;

class CachePage final : public QWidget
{
    Q_OBJECT
public:
    explicit CachePage(Engine &engine, QWidget *parent = nullptr);

    void reload();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void evict();
    void clear();
    void runOffThread(std::function<QString()> work);

    Engine &m_engine;
    QLabel *m_total = nullptr;
    QTreeWidget *m_list = nullptr;
    QPushButton *m_evict = nullptr;
    QPushButton *m_clear = nullptr;
    QLabel *m_status = nullptr;
    bool m_busy = false;
};

} // namespace isolation
