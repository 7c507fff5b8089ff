// A combo box of this computer's sessions ("workspace — session id"), kept current from the
// SessionsController; the Changes and Conflicts tabs pick their session with it.
#pragma once

#include <QComboBox>

namespace isolation {

class SessionsController;

class SessionPicker final : public QComboBox
{
    Q_OBJECT
public:
    explicit SessionPicker(SessionsController &sessions, QWidget *parent = nullptr);

    QString currentSession() const;
    void setCurrentSession(const QString &id);

Q_SIGNALS:
    void sessionPicked(const QString &id);

private:
    void reload();

    SessionsController &m_sessions;
};

} // namespace isolation
