// The main window: one tab per part of the product (Sessions, Changes, Conflicts, Warm cache,
// Runtime, Activity) under a line that says the engine's state.
#pragma once

#include <QMainWindow>

class QLabel;
class QTabWidget;

namespace isolation {

class ChangesPage;
class ConflictsPage;
class Engine;
class SessionsController;
class SessionsPage;

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(Engine &engine, SessionsController &sessions, QWidget *parent = nullptr);

    QTabWidget *tabs() const { return m_tabs; }
    void bringToFront();
    // Shows one tab ("sessionsTab", "changesTab", "conflictsTab", ...) on `session` (empty: as is).
    void showTab(const QString &objectName, const QString &session = {});

private:
    void updateState();
    void pickSession(const QString &id);

    Engine &m_engine;
    SessionsPage *m_sessionsPage = nullptr;
    ChangesPage *m_changesPage = nullptr;
    ConflictsPage *m_conflictsPage = nullptr;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_state = nullptr;
};

} // namespace isolation
