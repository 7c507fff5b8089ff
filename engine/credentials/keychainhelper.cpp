#include "keychainhelper.h"

#include "core/helperprograms.h"

#include <QProcess>
#include <QTimer>

namespace isolation {

namespace {
QString verb(KeychainHelper::Operation operation)
{
    switch (operation) {
    case KeychainHelper::Operation::Read:
        return QStringLiteral("read");
    case KeychainHelper::Operation::Write:
        return QStringLiteral("write");
    case KeychainHelper::Operation::Delete:
        break;
    }
    return QStringLiteral("delete");
}
} // namespace

KeychainHelper::KeychainHelper(QObject *parent)
    : KeychainHelper(program(), parent)
{ }

KeychainHelper::KeychainHelper(QString program, QObject *parent)
    : QObject(parent)
    , m_program(std::move(program))
{ }

KeychainHelper::~KeychainHelper()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

QString KeychainHelper::program()
{
    return helpers::program(QStringLiteral("isolation-keychain"));
}

void KeychainHelper::run(Operation operation, const QString &service, const QString &key, SecureBytes secret, Done done)
{
    m_queue.push_back({operation, service, key, std::move(secret), std::move(done)});
    if (m_queue.size() == 1)
        QTimer::singleShot(0, this, &KeychainHelper::startNext); // never call back inside run()
}

void KeychainHelper::startNext()
{
    if (m_process || m_queue.empty())
        return;
    Pending &next = m_queue.front();
    const SecureBytes input = std::move(next.secret); // only a Write has one
    auto *process = new QProcess(this);
    m_process = process;
    process->setProgram(m_program);
    process->setArguments({verb(next.operation), next.service, next.key});
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        if (process == m_process)
            finished(exitCode, status == QProcess::CrashExit);
    });
    // Queued: a start that fails at once must not complete (and call back) inside start().
    connect(
        process, &QProcess::errorOccurred, this,
        [this, process](QProcess::ProcessError error) {
            if (error == QProcess::FailedToStart && process == m_process)
                complete({KeychainExit::Unavailable, {},
                    QStringLiteral("cannot run the keychain helper %1: %2")
                        .arg(process->program(), process->errorString())});
        },
        Qt::QueuedConnection);
    if (!m_timer) {
        m_timer = new QTimer(this);
        m_timer->setSingleShot(true);
        connect(m_timer, &QTimer::timeout, this, &KeychainHelper::timedOut);
    }
    m_timer->start(m_timeout);
    process->start(QIODevice::ReadWrite);
    if (!input.isEmpty())
        process->write(input.constData(), input.size());
    process->closeWriteChannel();
}

void KeychainHelper::finished(int exitCode, bool crashed)
{
    Outcome outcome;
    const QString said = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
    if (crashed) {
        outcome.message = QStringLiteral("the keychain helper %1 crashed").arg(m_process->program());
    } else if (exitCode < int(KeychainExit::Ok) || exitCode > int(KeychainExit::Locked)) {
        outcome.message = said.isEmpty()
            ? QStringLiteral("the keychain helper %1 failed (status %2)").arg(m_process->program()).arg(exitCode)
            : said;
    } else {
        outcome.exit = KeychainExit(exitCode);
        outcome.message = said;
        if (outcome.exit == KeychainExit::Ok && m_queue.front().operation == Operation::Read) {
            QByteArray out = m_process->readAllStandardOutput();
            outcome.secret = SecureBytes(out);
            out.fill('\0');
        }
    }
    complete(std::move(outcome));
}

void KeychainHelper::timedOut()
{
    if (!m_process)
        return;
    m_process->disconnect(this);
    m_process->kill(); // its finished() is not ours any more; deleteLater() reaps it
    complete({KeychainExit::Unavailable, {},
        QStringLiteral("the desktop keychain did not answer within %1 s (is it locked, waiting for a password?)")
            .arg(std::chrono::duration_cast<std::chrono::seconds>(m_timeout).count())});
}

void KeychainHelper::complete(Outcome outcome)
{
    if (!m_process)
        return; // already completed (a failed start reports both an error and, maybe, an exit)
    m_timer->stop();
    m_process->disconnect(this);
    m_process->deleteLater();
    m_process = nullptr;
    Done done = std::move(m_queue.front().done);
    m_queue.pop_front();
    if (!m_queue.empty())
        QTimer::singleShot(0, this, &KeychainHelper::startNext);
    done(std::move(outcome)); // last: it may delete this object
}

} // namespace isolation
