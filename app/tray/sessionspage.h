// The Sessions tab: every session on this computer — workspace, state, changed files, commits
// ahead of and behind main, the last save — with New session, Save all, Sync and Open folder.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace isolation {

class SessionsController;
struct SessionSnapshot;

// One line for a session's state ("Ready", "Saving: upload", "Conflicts", ...).
QString sessionStateText(const SessionSnapshot &s);

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
    void reload();
    void updateRow(const QString &id);
    void updateActions();

    SessionsController &m_sessions;
    QLineEdit *m_workspace = nullptr;
    QPushButton *m_create = nullptr;
    QTableWidget *m_table = nullptr;
    QPushButton *m_saveAll = nullptr;
    QPushButton *m_sync = nullptr;
    QPushButton *m_openFolder = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace isolation
