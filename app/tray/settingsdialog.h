// Settings: the hub to pair with, launch at login, which notifications to show, the tray icon
// style, where this engine keeps its data, and Unpair.
#pragma once

#include <QDialog>
#include <QList>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace isolation {

class EngineModel;

class SettingsDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit SettingsDialog(EngineModel &engine, QWidget *parent = nullptr);

Q_SIGNALS:
    void preferencesChanged(); // notifications or icon style changed

private:
    void update();
    void apply();
    void unpair();

    EngineModel &m_engine;
    QLineEdit *m_hub = nullptr;
    QLabel *m_pairing = nullptr;
    QPushButton *m_unpair = nullptr;
    QCheckBox *m_autostart = nullptr;
    QComboBox *m_iconStyle = nullptr;
    QList<QCheckBox *> m_notify; // one per TrayPreferences::notificationKinds()
};

} // namespace isolation
