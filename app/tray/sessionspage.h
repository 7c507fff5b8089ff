// The Sessions tab: every session on this computer — workspace, state (with an operation's bytes),
// its sandbox and agent, changed files, commits ahead of and behind main, the last save — with New
// session, Save all, Sync, Open folder, and Suspend, Resume and Finish… for its sandbox.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace isolation {

class SessionsController;
struct SessionSnapshot;

// One line for a session's state ("Ready", "Saving: upload 3.1 MB of 12 MB", "Conflicts", ...).
QString sessionStateText(const SessionSnapshot &s);
// One line for its sandbox and agent ("Running · agent running, 2 restarts"; "" without one).
QString sandboxText(const SessionSnapshot &s);

class SessionsPage final : public QWidget
{
    Q_OBJECT
public:
    explicit SessionsPage(SessionsController &sessions, QWidget *parent = nullptr);

    QString currentSession() const;
    void setCurrentSession(const QString &id);

Q_SIGNALS:
    void sessionPicked(const QString &id);
    void showChanges(const QString &id);

private:
    // The constructor's parts: the widgets laid out, then their signals connected.
    void build();
    void wire();
    void reload();
    void updateRow(const QString &id);
    void updateActions();

    SessionsController &m_sessions;
    QLineEdit *m_workspace = nullptr;
    QPushButton *m_create = nullptr;
    QPushButton *m_cancelCreate = nullptr; // shown while a session started here opens
    QString m_creating; // that session's id
    bool m_cancelCreateAsked = false;
    QTableWidget *m_table = nullptr;
    QPushButton *m_saveAll = nullptr;
    QPushButton *m_sync = nullptr;
    QPushButton *m_openFolder = nullptr;
    QPushButton *m_suspend = nullptr;
    QPushButton *m_resume = nullptr;
    QPushButton *m_finish = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace isolation
