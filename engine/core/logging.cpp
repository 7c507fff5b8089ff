#include "logging.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include <sys/stat.h>

Q_LOGGING_CATEGORY(lcCore, "isolation.core")

namespace isolation::logging {

namespace {

// Encoded forms shorter than this are not redacted: a few characters of base64 turn up in
// ordinary text (the raw secret keeps the lower bound addRedaction() documents).
constexpr qsizetype kMinFormBytes = 8;

struct Secret
{
    int holders = 0;
    QList<QByteArray> forms; // the secret itself and how it looks encoded
};

// The message handler is process-global by Qt's design, so its state is too.
struct State
{
    QMutex mutex;
    QFile file;
    Rotation rotation;
    QHash<QByteArray, Secret> secrets;
    QList<QByteArray> patterns; // every form of every secret, longest first
};

State &state()
{
    static State s;
    return s;
}

// The secret as base64 wherever it starts in a longer encoded text (an "Authorization: Basic"
// header, a data: URL): with 1 or 2 bytes before it, the characters that also carry those bytes,
// and the last one that carries what follows, differ between occurrences; the ones between do not.
void addBase64(QList<QByteArray> &forms, const QByteArray &secret, QByteArray::Base64Options alphabet)
{
    forms << secret.toBase64(alphabet) << secret.toBase64(alphabet | QByteArray::OmitTrailingEquals);
    for (int shift = 0; shift < 3; ++shift) {
        const QByteArray encoded
            = QByteArray(QByteArray(shift, '\0') + secret).toBase64(alphabet | QByteArray::OmitTrailingEquals);
        const qsizetype head = shift == 0 ? 0 : shift + 1; // 1 byte before: 2 characters; 2: 3
        const qsizetype tail = (shift + secret.size()) % 3 == 0 ? 0 : 1;
        forms << encoded.mid(head, encoded.size() - head - tail);
    }
}

// The forms a secret is redacted in, computed once when it is registered: raw; base64 (standard
// and URL-safe, with and without padding, at any alignment); percent-encoded (as QUrl writes it,
// and with lower-case hex digits); as a JSON string's contents (as QJsonDocument writes it),
// once or twice.
QList<QByteArray> formsOf(const QByteArray &secret)
{
    QList<QByteArray> forms {secret};
    addBase64(forms, secret, QByteArray::Base64Encoding);
    addBase64(forms, secret, QByteArray::Base64UrlEncoding);
    const QByteArray percent = secret.toPercentEncoding(); // QUrl::toPercentEncoding() on the bytes
    forms << percent;
    QByteArray lower = percent;
    for (qsizetype i = 0; i + 2 < lower.size(); ++i) {
        if (lower[i] == '%') {
            lower[i + 1] = char(std::tolower(uchar(lower[i + 1])));
            lower[i + 2] = char(std::tolower(uchar(lower[i + 2])));
        }
    }
    forms << lower;
    // Only text can be written as a JSON string. Twice too: a JSON body inside a JSON string, or
    // logged by QDebug, whose quoting escapes '"', '\\' and control characters the same way.
    auto jsonEscaped = [](const QString &text) {
        const QByteArray json = QJsonDocument(QJsonArray {text}).toJson(QJsonDocument::Compact);
        return json.mid(2, json.size() - 4); // between [" and "]
    };
    if (const QString text = QString::fromUtf8(secret); text.toUtf8() == secret) {
        const QByteArray once = jsonEscaped(text);
        forms << once << jsonEscaped(QString::fromUtf8(once));
    }
    QList<QByteArray> kept;
    for (const QByteArray &form : std::as_const(forms)) {
        if ((form == secret || form.size() >= kMinFormBytes) && !kept.contains(form))
            kept << form;
    }
    return kept;
}

void rebuildPatternsLocked(State &s)
{
    s.patterns.clear();
    for (const Secret &secret : std::as_const(s.secrets)) {
        for (const QByteArray &form : secret.forms) {
            if (!s.patterns.contains(form))
                s.patterns << form;
        }
    }
    // Longest first, so a form that holds another is replaced whole.
    std::sort(s.patterns.begin(), s.patterns.end(),
        [](const QByteArray &a, const QByteArray &b) { return a.size() > b.size(); });
}

QByteArray redactLocked(QByteArray text, const QList<QByteArray> &patterns)
{
    for (const QByteArray &pattern : patterns)
        text.replace(pattern, QByteArrayLiteral("[redacted]"));
    return text;
}

QString rotatedName(const QString &logFile, int n)
{
    return logFile + QLatin1Char('.') + QString::number(n);
}

bool openLocked(State &s)
{
    if (!s.file.open(QIODevice::Append | QIODevice::Text))
        return false;
    s.file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return true;
}

// Whether the log's name still names the file this process writes (another process writing the
// same log, a second tray of the same user, may have rotated it already).
bool stillNamesOurFile(const State &s)
{
    struct stat byName
    {
    };
    struct stat ours
    {
    };
    return ::stat(QFile::encodeName(s.file.fileName()).constData(), &byName) == 0
        && ::fstat(s.file.handle(), &ours) == 0 && byName.st_dev == ours.st_dev && byName.st_ino == ours.st_ino;
}

// NAME -> NAME.1 -> ... -> NAME.<keep> (deleted), then a new NAME. Called with the lock held, before
// a line that would take the file past its limit; the line then goes whole into the new file.
void rotateLocked(State &s)
{
    const QString name = s.file.fileName();
    if (!stillNamesOurFile(s)) { // rotated by the other writer: follow it to the new file
        s.file.close();
        s.file.setFileName(name);
        openLocked(s);
        return;
    }
    s.file.close();
    const QByteArray encoded = QFile::encodeName(name);
    if (s.rotation.keep <= 0) {
        QFile::resize(name, 0);
    } else {
        ::remove(QFile::encodeName(rotatedName(name, s.rotation.keep)).constData());
        for (int n = s.rotation.keep - 1; n >= 1; --n)
            ::rename(QFile::encodeName(rotatedName(name, n)).constData(),
                QFile::encodeName(rotatedName(name, n + 1)).constData());
        ::rename(encoded.constData(), QFile::encodeName(rotatedName(name, 1)).constData());
    }
    s.file.setFileName(name);
    if (!openLocked(s)) { // cannot start a new file: keep writing the old one rather than lose lines
        ::rename(QFile::encodeName(rotatedName(name, 1)).constData(), encoded.constData());
        s.file.setFileName(name);
        openLocked(s);
    }
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
        + ": " + redactLocked(message.toUtf8(), s.patterns) + '\n';
    std::fwrite(line.constData(), 1, size_t(line.size()), stderr);
    if (s.file.isOpen()) {
        // The file's size as it is (fstat), not as this process counted: another process may write
        // the same log (two trays of one user), and both keep it under the limit.
        if (s.rotation.maxBytes > 0) {
            const qint64 size = s.file.size();
            if (size > 0 && size + line.size() > s.rotation.maxBytes)
                rotateLocked(s);
        }
        if (s.file.isOpen()) {
            s.file.write(line);
            s.file.flush();
        }
    }
    if (type == QtFatalMsg)
        std::abort();
}

} // namespace

bool install(const QString &logFile, Rotation rotation)
{
    State &s = state();
    {
        QMutexLocker lock(&s.mutex);
        if (s.file.isOpen())
            s.file.close();
        s.rotation = rotation;
        if (!logFile.isEmpty()) {
            s.file.setFileName(logFile);
            if (!openLocked(s))
                return false;
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

QStringList logFiles(const QString &logFile, int keep)
{
    QStringList files;
    if (QFileInfo::exists(logFile))
        files << logFile;
    for (int n = 1; n <= keep; ++n) {
        if (const QString name = rotatedName(logFile, n); QFileInfo::exists(name))
            files << name;
    }
    return files;
}

void addRedaction(const QByteArray &secret)
{
    if (secret.size() < 4)
        return;
    State &s = state();
    QMutexLocker lock(&s.mutex);
    Secret &entry = s.secrets[secret];
    if (entry.holders++ == 0) {
        entry.forms = formsOf(secret);
        rebuildPatternsLocked(s);
    }
}

void removeRedaction(const QByteArray &secret)
{
    State &s = state();
    QMutexLocker lock(&s.mutex);
    auto it = s.secrets.find(secret);
    if (it != s.secrets.end() && --it->holders <= 0) {
        s.secrets.erase(it);
        rebuildPatternsLocked(s);
    }
}

QString redact(const QString &text)
{
    State &s = state();
    QMutexLocker lock(&s.mutex);
    if (s.patterns.isEmpty())
        return text;
    return QString::fromUtf8(redactLocked(text.toUtf8(), s.patterns));
}

} // namespace isolation::logging
