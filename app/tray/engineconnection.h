// The tray's hold on the user's engine (`isolation-server up`, issue 21): it attaches to the one
// that runs, through the LocalAPI's event stream, and notices at once when that engine goes (the
// stream closes) and when it comes back (the stream reconnects by itself). When none runs it can
// start one as a process of its own session (setsid), which outlives the tray: quitting the tray
// never takes the computer offline. It owns no engine code; it speaks only the LocalAPI.
#pragma once

#include "localapi/eventfollower.h"

#include <QObject>
#include <QStringList>
#include <QTimer>

namespace isolation {

class EngineConnection final : public QObject
{
    Q_OBJECT
public:
    enum class State {
        Connecting, // the first attempt is under way
        Attached, // an engine answers; events come
        Down, // no engine answers (reason() says why); it is looked for again by itself
        Starting, // this tray started one and waits for it to answer
    };
    Q_ENUM(State)

    // `socketPath`: the engine's LocalAPI socket (Paths::socketPath()); `program` and `arguments`:
    // how to start it (default: isolation-server beside this program, else on PATH; `up`).
    explicit EngineConnection(QString socketPath, QObject *parent = nullptr);
    void setProgram(const QString &program, const QStringList &arguments);
    // How long startEngine() waits for the new engine to answer before saying it did not.
    void setStartTimeout(int ms) { m_startTimer.setInterval(ms); }

    void attach();
    // Starts an engine unless one is attached: `setsid PROGRAM ARGUMENTS`, a detached process that
    // outlives the tray. Emits engineStarted(pid) once the process exists, and Attached when it
    // answers, or Down with the reason.
    // Does nothing while an engine is attached, or is starting unless `whileStarting` is Start (the
    // systemd unit could not start one: this tray does).
    enum class WhileStarting { Skip, Start };
    void startEngine(WhileStarting whileStarting = WhileStarting::Skip);
    // An engine is being started by someone else (the systemd user unit): wait for it as for one
    // of ours, with `how` as the reason shown meanwhile.
    void expectEngine(const QString &how);

    State state() const { return m_state; }
    QString reason() const { return m_reason; }
    QString program() const { return m_program; }
    EventFollower *events() { return &m_follower; }

Q_SIGNALS:
    void stateChanged(isolation::EngineConnection::State state, const QString &reason);
    void engineStarted(qint64 pid);
    void event(const isolation::LocalApiEvent &event);

private:
    void setState(State state, const QString &reason);

    QString m_socketPath;
    QString m_program;
    QStringList m_arguments;
    EventFollower m_follower;
    QTimer m_startTimer;
    State m_state = State::Connecting;
    QString m_reason;
};

} // namespace isolation
