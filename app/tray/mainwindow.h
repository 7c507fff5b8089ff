// The main window: one tab per part of the product (Sessions, Changes, Conflicts, Warm cache,
// Runtime, Activity) under a line that says the engine's state.
#pragma once

#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace isolation {

class Engine;

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(Engine &engine, QWidget *parent = nullptr);

    QTabWidget *tabs() const { return m_tabs; }
    void bringToFront();

private:
    void updateState();
    QWidget *placeholder(const QString &objectName, const QString &title, const QString &what);

    Engine &m_engine;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_state = nullptr;
};

} // namespace isolation
