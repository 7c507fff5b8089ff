// The main window: one tab per part of the product (Sessions, Changes, Conflicts, Warm cache,
// Runtime, Activity) under a line that says the engine's state — with Start when no engine runs —
// and, while this computer is not paired, a banner with Pair.
#pragma once

#include <QMainWindow>

class QFrame;
class QLabel;
class QPushButton;
class QTabWidget;

namespace isolation {

class ChangesPage;
class ConflictsPage;
class EngineModel;
class SessionsController;
class SessionsPage;

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(EngineModel &engine, SessionsController &sessions, QWidget *parent = nullptr);

    QTabWidget *tabs() const { return m_tabs; }
    void bringToFront();
    // Shows one tab ("sessionsTab", "changesTab", "conflictsTab", ...) on `session` (empty: as is).
    void showTab(const QString &objectName, const QString &session = {});

Q_SIGNALS:
    void startRequested(); // Start the engine
    void pairRequested();

private:
    void updateState();
    void pickSession(const QString &id);
    QWidget *makePairBanner(QWidget *parent);

    EngineModel &m_engine;
    QPushButton *m_start = nullptr;
    QFrame *m_pairBanner = nullptr;
    QPushButton *m_pair = nullptr; // in the banner
    SessionsPage *m_sessionsPage = nullptr;
    ChangesPage *m_changesPage = nullptr;
    ConflictsPage *m_conflictsPage = nullptr;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_state = nullptr;
    QLabel *m_warnings = nullptr;
};

} // namespace isolation
