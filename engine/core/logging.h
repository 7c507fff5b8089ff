// Logging: one category per module, a message handler that writes to stderr and the engine's
// log file (rotated by size), and redaction of registered secrets before any line leaves the process.
#pragma once

#include <QByteArray>
#include <QLoggingCategory>
#include <QString>
#include <QStringList>

Q_DECLARE_LOGGING_CATEGORY(lcCore)

namespace isolation::logging {

// A log file is rotated by size, as syslog's logrotate or journald would: once the next line would
// take it past maxBytes, NAME becomes NAME.1, NAME.1 becomes NAME.2, ... and NAME.<keep> is
// deleted; a new NAME is started. A line is never split across two files and none is lost to the
// rotation (lines of all threads are written whole under one lock, and the rotation happens under
// it too). At most (keep + 1) * maxBytes on disk: 50 MiB for the engine's log.
constexpr qint64 MaxLogFileBytes = 10 * 1024 * 1024;
constexpr int KeptLogFiles = 4; // engine.log.1 (the newest) ... engine.log.4

struct Rotation
{
    qint64 maxBytes = MaxLogFileBytes; // 0: never rotated
    int keep = KeptLogFiles; // rotated files kept beside the current one
};

// Installs the process-wide message handler. With an empty path only stderr is written.
// Returns false when the log file cannot be opened (stderr still works).
bool install(const QString &logFile, Rotation rotation = {});

// The files of a log that exist, newest first: NAME, NAME.1, NAME.2, ... (up to NAME.<keep>).
QStringList logFiles(const QString &logFile, int keep = KeptLogFiles);

// Restores Qt's default handler and closes the log file.
void uninstall();

// Every later log line has each occurrence of `secret` replaced by "[redacted]", and so has each
// occurrence of the secret encoded: base64 (standard and URL-safe, padded or not, also where it
// starts at any byte of a longer encoded text), percent-encoded (upper- or lower-case hex) and
// JSON-escaped (as QJsonDocument writes a string; once, or twice as a JSON body inside a JSON
// string or in QDebug's quotes). The forms are computed here, once.
// Secrets shorter than 4 bytes are ignored, and so are encoded forms shorter than 8 (they would
// redact ordinary words). Registrations are counted: a secret two holders registered stays
// redacted until both have removed it.
void addRedaction(const QByteArray &secret);
void removeRedaction(const QByteArray &secret);

// Applies the registered redactions to a text (for error bodies and UI strings too).
QString redact(const QString &text);

} // namespace isolation::logging
