// The Runtime tab: the pinned sandbox runtime container — state, images and digest, container,
// uptime, restarts — and a Restart button. Reads the engine's runtime status; never blocks.
#pragma once

#include <QJsonObject>
#include <QWidget>

class QFormLayout;
class QLabel;
class QPushButton;
class QTimer;

namespace isolation {

class EngineModel;

class RuntimePage final : public QWidget
{
    Q_OBJECT
public:
    explicit RuntimePage(EngineModel &engine, QWidget *parent = nullptr);

    // "2 h 05 min", "4 min 10 s", "12 s".
    static QString formatUptime(qint64 seconds);
    // The translated name of a runtime state ("healthy", "docker_missing", ... as in status JSON).
    static QString stateText(const QString &stateName);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void refresh();
    void restart();
    QLabel *addRow(const QString &objectName, const QString &label);

    EngineModel &m_engine;
    QLabel *m_state = nullptr;
    QLabel *m_reason = nullptr;
    QLabel *m_pin = nullptr;
    QLabel *m_image = nullptr;
    QLabel *m_execdImage = nullptr;
    QLabel *m_digest = nullptr;
    QLabel *m_container = nullptr;
    QLabel *m_uptime = nullptr;
    QLabel *m_restarts = nullptr;
    QLabel *m_sessions = nullptr;
    QPushButton *m_restart = nullptr;
    QTimer *m_tick = nullptr;
    QFormLayout *m_form = nullptr;
    bool m_restarting = false;
};

} // namespace isolation
