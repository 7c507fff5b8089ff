// The Warm cache tab: the workspaces cached on this computer for fast session starts — size,
// last use — with Evict and Clear, the total and the cap. The engine deletes; the page asks it.
#pragma once

#include <QJsonObject>
#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace isolation {

class EngineModel;

class CachePage final : public QWidget
{
    Q_OBJECT
public:
    explicit CachePage(EngineModel &engine, QWidget *parent = nullptr);

    void reload();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void evict();
    void clear();
    void ask(const QString &path, const QJsonObject &body, std::function<QString(const QJsonObject &)> said,
        std::function<QString(const QString &)> failed);

    EngineModel &m_engine;
    QLabel *m_total = nullptr;
    QTreeWidget *m_list = nullptr;
    QPushButton *m_evict = nullptr;
    QPushButton *m_clear = nullptr;
    QLabel *m_status = nullptr;
    bool m_busy = false;
};

} // namespace isolation
