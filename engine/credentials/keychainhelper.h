// The desktop keychain through a short-lived helper process (isolation-keychain), one per
// operation. QtKeychain, and what it loads for the Secret Service (libsecret, GIO, GObject,
// libgcrypt: about 4 MiB resident), then never stay mapped in the tray or the engine, which use
// the keychain only at start and when pairing (bench/README.md, "tray").
#pragma once

#include "crypto/securebytes.h"
#include "keychainexit.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <deque>
#include <functional>

class QProcess;
class QTimer;

namespace isolation {

// Runs one operation at a time, in the order asked (as QtKeychain runs its jobs in-process), so
// a remove asked after a save also lands after it.
class KeychainHelper final : public QObject
{
    Q_OBJECT
public:
    enum class Operation { Read, Write, Delete };
    struct Outcome
    {
        KeychainExit exit = KeychainExit::Unavailable;
        SecureBytes secret; // Read, when Ok: the entry
        QString message; // when not Ok: the keychain's words, or why the helper did not run
    };
    using Done = std::function<void(Outcome)>;

    explicit KeychainHelper(QObject *parent = nullptr);
    KeychainHelper(QString program, QObject *parent = nullptr); // another helper (tests)
    ~KeychainHelper() override; // stops a helper still running; its callback never runs

    // `secret` is what Write stores. `done` runs exactly once, later, on this object's thread.
    void run(Operation operation, const QString &service, const QString &key, SecureBytes secret, Done done);

    // A helper that has not answered by then is stopped and the operation fails as Unavailable:
    // a keychain that never answers (a Secret Service that hangs, an unlock prompt nobody sees on
    // a headless machine) becomes a clear error instead of an engine starting forever. Two
    // minutes by default, time enough to type a keychain password.
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }

    // Where the helper is: ../libexec/isolation/isolation-keychain from the running program, in
    // an installation (/usr/bin -> /usr/libexec/isolation) as in a build tree (app/, tests/).
    static QString program();

private:
    struct Pending
    {
        Operation operation;
        QString service;
        QString key;
        SecureBytes secret;
        Done done;
    };

    void startNext();
    void finished(int exitCode, bool crashed);
    void complete(Outcome outcome);
    void timedOut();

    QString m_program;
    std::chrono::milliseconds m_timeout = std::chrono::minutes(2);
    QTimer *m_timer = nullptr;
    std::deque<Pending> m_queue;
    QProcess *m_process = nullptr;
};

} // namespace isolation
