// The Changes tab: the files the chosen session touched, each with a checkbox, its status and a
// diff preview (DiffView: coloured, with line numbers); "Save selected" and "Save all" with a message; progress while
// saving or syncing (bytes of the total, rate and time left, as the command line's progress line shows them),
// with a Cancel button while the engine can stop the operation safely. A disabled control says why (its tooltip
// and the line under the buttons).
#pragma once

#include "core/transferrate.h"

#include <QElapsedTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace isolation {

class DiffView;
class SessionPicker;
class SessionsController;

class ChangesPage final : public QWidget
{
    Q_OBJECT
public:
    explicit ChangesPage(SessionsController &sessions, QWidget *parent = nullptr);

    SessionPicker *picker() const { return m_picker; }
    QStringList checkedFiles() const;

private:
    // The constructor's parts: the widgets laid out, then their signals connected.
    void build();
    void wire();
    void reload();
    void updateActions();
    void showDiff();
    void save(bool selectedOnly);

    SessionsController &m_sessions;
    SessionPicker *m_picker = nullptr;
    QTreeWidget *m_files = nullptr;
    DiffView *m_diff = nullptr;
    QLineEdit *m_message = nullptr;
    QPushButton *m_refresh = nullptr;
    QPushButton *m_saveSelected = nullptr;
    QPushButton *m_saveAll = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr; // beside the bar; enabled while the engine may stop the operation
    QString m_cancelAsked; // the session and operation a click asked to cancel (the button then waits)
    QLabel *m_why = nullptr;
    QLabel *m_summary = nullptr;
    int m_diffRequest = 0;
    TransferRate m_rate; // of the phase the bar shows
    QString m_ratePhase; // session, operation and phase m_rate counts
    QElapsedTimer m_clock;
    bool m_whyIsReason = false; // m_why says why a button is disabled (not what just happened)
};

// The status of a changed file, for people ("modified", "new", ...).
QString fileStatusText(int status);

} // namespace isolation
