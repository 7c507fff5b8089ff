// Starting at login, for the engine and the tray separately (issue 21).
// The engine (`isolation-server up`) starts through the systemd user unit isolation-server.service
// where a systemd user manager runs and knows that unit (the package installs it); otherwise, and
// on desktops without systemd, through an XDG autostart entry io.isolation.Engine.desktop. The
// tray always starts through its own XDG autostart entry io.isolation.Tray.desktop.
// The tray's Start also goes through the unit where there is one, so the engine is the user
// manager's service (supervised, restarted on failure, in the journal) however it was started.
// systemctl runs asynchronously (the tray's GUI thread never waits for it), with a timeout.
#pragma once

#include "core/result.h"

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

namespace isolation {

class Autostart final : public QObject
{
    Q_OBJECT
public:
    explicit Autostart(QObject *parent = nullptr);

    // Finds out (again) which mechanism starts the engine and whether the unit is enabled: asks
    // systemctl, asynchronously; emits changed() when known. The first call happens by itself on
    // the first setEngineAtLogin(); call it early to show the state in a dialog.
    void refresh();
    // True once a refresh() has answered; until then engineMechanism() is empty and
    // engineAtLogin() reads only the autostart entry.
    bool isReady() const { return m_state == State::Ready; }

    // "systemd" (the user unit) or "autostart" (the XDG entry); empty until isReady().
    QString engineMechanism() const;
    bool engineAtLogin() const;
    // Enables/disables the unit, or writes/removes the entry; `done` is called later, on this
    // object's thread, with the outcome (never from inside this call). Enabling the unit removes
    // an engine autostart entry left from before, so the engine is not started twice.
    void setEngineAtLogin(bool on, std::function<void(Status)> done);

    // Starts the engine as the user unit (`systemctl --user start isolation-server.service`) where
    // the user manager knows the unit; `done` later, with NotFound where it does not (start the
    // engine another way) or the failure.
    void startEngineUnit(std::function<void(Status)> done);

    bool trayAtLogin() const;
    Status setTrayAtLogin(bool on);

    // $XDG_CONFIG_HOME/autostart/io.isolation.{Engine,Tray}.desktop (XDG_CONFIG_HOME: ~/.config
    // when unset or not absolute, as the XDG spec says).
    static QString engineEntryFile();
    static QString trayEntryFile();

    // The programs the entries start: beside the running program, else on PATH, unless set.
    QString engineProgram() const;
    void setEngineProgram(const QString &absolutePath) { m_engineProgram = absolutePath; }
    QString trayProgram() const;
    void setTrayProgram(const QString &absolutePath) { m_trayProgram = absolutePath; }
    // The systemctl to run ("systemctl": looked up on PATH) and how long one call may take.
    void setSystemctlProgram(const QString &program) { m_systemctl = program; }
    void setTimeout(int ms) { m_timeoutMs = ms; }

    // One argument as the Exec key of a desktop entry writes it (quoted and escaped when needed).
    static QString execArgument(const QString &arg);

Q_SIGNALS:
    // The mechanism or the state of either entry changed (or a refresh() answered).
    void changed();

private:
    enum class State { Unknown, Probing, Ready };
    struct Run
    {
        int exitCode = -1; // -1: did not start, crashed or timed out (see error)
        QString out;
        QString error; // why it failed, for a message
    };

    void runSystemctl(const QStringList &args, std::function<void(const Run &)> then);
    void probed(const QString &mechanism, bool enabled);
    void whenReady(std::function<void()> then);
    void finish(std::function<void(Status)> done, Status status);

    State m_state = State::Unknown;
    QString m_mechanism;
    bool m_unitEnabled = false;
    std::vector<std::function<void()>> m_waiting;
    QString m_engineProgram;
    QString m_trayProgram;
    QString m_systemctl = QStringLiteral("systemctl");
    int m_timeoutMs = 15000;
};

} // namespace isolation
