// Settings: the hub to pair with, where this engine keeps its data, and Unpair.
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;

namespace isolation {

class Engine;

class SettingsDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit SettingsDialog(Engine &engine, QWidget *parent = nullptr);

private:
    void update();
    void apply();
    void unpair();

    Engine &m_engine;
    QLineEdit *m_hub = nullptr;
    QLabel *m_pairing = nullptr;
    QPushButton *m_unpair = nullptr;
};

} // namespace isolation
