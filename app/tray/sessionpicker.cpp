#include "sessionpicker.h"

#include "sessionscontroller.h"

#include <QSignalBlocker>

namespace isolation {

SessionPicker::SessionPicker(SessionsController &sessions, QWidget *parent)
    : QComboBox(parent)
    , m_sessions(sessions)
{
    setAccessibleName(tr("Session"));
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(&m_sessions, &SessionsController::sessionsChanged, this, &SessionPicker::reload);
    connect(this, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT sessionPicked(currentSession()); });
    reload();
}

QString SessionPicker::currentSession() const
{
    return currentData().toString();
}

void SessionPicker::setCurrentSession(const QString &id)
{
    const int i = findData(id);
    if (i >= 0)
        setCurrentIndex(i);
}

void SessionPicker::reload()
{
    const QString keep = currentSession();
    {
        const QSignalBlocker quiet(this);
        clear();
        for (const QString &id : m_sessions.sessionIds()) {
            const SessionSnapshot *s = m_sessions.snapshot(id);
            addItem(tr("%1 — %2").arg(s ? s->workspaceName : QString(), id), id);
        }
        const int i = findData(keep);
        setCurrentIndex(i >= 0 ? i : (count() ? 0 : -1));
    }
    if (currentSession() != keep)
        Q_EMIT sessionPicked(currentSession());
}

} // namespace isolation
