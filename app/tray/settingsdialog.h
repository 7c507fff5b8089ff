// Settings: the hub to pair with, starting the engine and showing the tray at login (separately),
// which notifications to show, the tray icon style, where this engine keeps its data, and Unpair.
#pragma once

#include <QDialog>
#include <QList>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;

namespace isolation {

class Autostart;
class EngineModel;

class SettingsDialog final : public QDialog
{
    Q_OBJECT
public:
    SettingsDialog(EngineModel &engine, Autostart &autostart, QWidget *parent = nullptr);

Q_SIGNALS:
    void preferencesChanged(); // notifications or icon style changed

private:
    // The tray's own rows of the form: the icon style and which notifications are shown.
    void addTrayPreferences(QFormLayout *form);
    void update();
    void updateAutostart();
    void apply();
    void unpair();

    EngineModel &m_engine;
    Autostart &m_autostart;
    QLineEdit *m_hub = nullptr;
    QLabel *m_pairing = nullptr;
    QPushButton *m_unpair = nullptr;
    QCheckBox *m_engineAtLogin = nullptr;
    QLabel *m_engineAtLoginHow = nullptr; // through the systemd user unit, or an autostart entry
    QCheckBox *m_trayAtLogin = nullptr;
    bool m_autostartShown = false; // the engine's box shows Autostart's answer
    QComboBox *m_iconStyle = nullptr;
    QList<QCheckBox *> m_notify; // one per TrayPreferences::notificationKinds()
};

} // namespace isolation
