#include "logging.h"

#include <QDateTime>
#include <QFile>
#include <QHash>
#include <QMutex>

#include <cstdio>

Q_LOGGING_CATEGORY(lcCore, "isolation.core")

namespace isolation::logging {

namespace {

// The message handler is process-global by Qt's design, so its state is too.
struct State
{
    QMutex mutex;
    QFile file;
    QHash<QByteArray, int> secrets; // secret -> how many holders registered it
};

State &state()
{
    static State s;
    return s;
}

QByteArray redactLocked(QByteArray text, const QHash<QByteArray, int> &secrets)
{
    for (auto it = secrets.keyBegin(); it != secrets.keyEnd(); ++it)
        text.replace(*it, QByteArrayLiteral("[redacted]"));
    return text;
}

const char *levelName(QtMsgType type)
{
    switch (type) {
    case QtDebugMsg:
        return "debug";
    case QtInfoMsg:
        return "info";
    case QtWarningMsg:
        return "warning";
    case QtCriticalMsg:
        return "error";
    case QtFatalMsg:
        return "fatal";
    }
    return "info";
}

void handler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    State &s = state();
    const QByteArray stamp = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toUtf8();
    QMutexLocker lock(&s.mutex);
    const QByteArray line = stamp + ' ' + levelName(type) + ' ' + (context.category ? context.category : "default")
        + ": " + redactLocked(message.toUtf8(), s.secrets) + '\n';
    std::fwrite(line.constData(), 1, size_t(line.size()), stderr);
    if (s.file.isOpen()) {
        s.file.write(line);
        s.file.flush();
    }
    if (type == QtFatalMsg)
        std::abort();
}

} // namespace

bool install(const QString &logFile)
{
    State &s = state();
    {
        QMutexLocker lock(&s.mutex);
        if (s.file.isOpen())
            s.file.close();
        if (!logFile.isEmpty()) {
            s.file.setFileName(logFile);
            if (!s.file.open(QIODevice::Append | QIODevice::Text))
                return false;
            s.file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        }
    }
    qInstallMessageHandler(handler);
    return true;
}

void uninstall()
{
    qInstallMessageHandler(nullptr);
    State &s = state();
    QMutexLocker lock(&s.mutex);
    s.file.close();
}

void addRedaction(const QByteArray &secret)
{
    if (secret.size() < 4)
        return;
    State &s = state();
    QMutexLocker lock(&s.mutex);
    ++s.secrets[secret];
}

void removeRedaction(const QByteArray &secret)
{
    State &s = state();
    QMutexLocker lock(&s.mutex);
    auto it = s.secrets.find(secret);
    if (it != s.secrets.end() && --it.value() <= 0)
        s.secrets.erase(it);
}

QString redact(const QString &text)
{
    State &s = state();
    QMutexLocker lock(&s.mutex);
    if (s.secrets.isEmpty())
        return text;
    return QString::fromUtf8(redactLocked(text.toUtf8(), s.secrets));
}

} // namespace isolation::logging
