// Logging: one category per module, a message handler that writes to stderr and the engine's
// log file, and redaction of registered secrets before any line leaves the process.
#pragma once

#include <QByteArray>
#include <QLoggingCategory>
#include <QString>

Q_DECLARE_LOGGING_CATEGORY(lcCore)

namespace isolation::logging {

// Installs the process-wide message handler. With an empty path only stderr is written.
// Returns false when the log file cannot be opened (stderr still works).
bool install(const QString &logFile);

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
