// The Conflicts tab: the chosen session's files in conflict after a sync, with the number of
// conflict regions in each and how many are resolved; "Open in editor", "Sync and leave
// markers", and "Save to finish" once the markers are gone. Stays until resolved.
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace isolation {

class SessionPicker;
class SessionsController;

class ConflictsPage final : public QWidget
{
    Q_OBJECT
public:
    explicit ConflictsPage(SessionsController &sessions, QWidget *parent = nullptr);

    SessionPicker *picker() const { return m_picker; }

private:
    void reload();

    SessionsController &m_sessions;
    SessionPicker *m_picker = nullptr;
    QLabel *m_summary = nullptr;
    QTreeWidget *m_files = nullptr;
    QPushButton *m_open = nullptr;
    QPushButton *m_resolve = nullptr;
    QPushButton *m_finish = nullptr;
};

} // namespace isolation
