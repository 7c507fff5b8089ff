#include "activitylog.h"

#include "logging.h"

#include <QJsonDocument>
#include <QSaveFile>

#include <optional>

namespace isolation {

ActivityLog::ActivityLog(QObject *parent)
    : QObject(parent)
{ }

ActivityLog::~ActivityLog() = default;

QJsonObject ActivityLog::toJson(const ActivityEntry &e)
{
    QJsonObject o {{QStringLiteral("time"), e.time.toString(Qt::ISODateWithMs)}, {QStringLiteral("kind"), e.kind},
        {QStringLiteral("message"), e.message}};
    if (!e.details.isEmpty())
        o.insert(QStringLiteral("details"), e.details);
    return o;
}

std::optional<ActivityEntry> ActivityLog::fromJson(const QJsonObject &o)
{
    ActivityEntry e;
    e.time = QDateTime::fromString(o.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs).toUTC();
    e.kind = o.value(QStringLiteral("kind")).toString();
    e.message = o.value(QStringLiteral("message")).toString();
    e.details = o.value(QStringLiteral("details")).toObject();
    if (!e.time.isValid() || e.kind.isEmpty())
        return std::nullopt;
    return e;
}

Status ActivityLog::keepIn(const QString &path)
{
    m_file.reset();
    auto file = std::make_unique<QFile>(path);
    std::deque<ActivityEntry> found;
    int lines = 0;
    bool cutAtEnd = false; // the last line has no line feed (a crash mid-write)
    if (file->open(QIODevice::ReadOnly)) {
        int skipped = 0;
        while (!file->atEnd()) {
            const QByteArray raw = file->readLine();
            cutAtEnd = !raw.endsWith('\n');
            const QByteArray line = raw.trimmed();
            if (line.isEmpty())
                continue;
            ++lines;
            const auto entry = fromJson(QJsonDocument::fromJson(line).object());
            if (!entry) {
                ++skipped;
                continue;
            }
            found.push_back(*entry);
            if (found.size() > size_t(Capacity))
                found.pop_front();
        }
        file->close();
        if (skipped)
            qCWarning(lcCore) << "activity log:" << skipped << "line(s) of" << path << "could not be read; skipped";
    }
    if (!file->open(QIODevice::WriteOnly | QIODevice::Append))
        return Error::failed(tr("Cannot keep the activity log in %1: %2").arg(path, file->errorString()));
    file->setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (cutAtEnd)
        file->write("\n"); // the next entry starts a line of its own
    m_file = std::move(file);
    m_linesInFile = lines;
    // What the file held comes first, then what this run recorded before it was opened.
    for (const ActivityEntry &e : m_entries) {
        found.push_back(e);
        write(e);
        if (found.size() > size_t(Capacity))
            found.pop_front();
    }
    m_entries = std::move(found);
    Q_EMIT cleared(); // a copy reads the log again whole
    compact();
    return {};
}

void ActivityLog::record(const QString &kind, const QString &message, const QJsonObject &details)
{
    ActivityEntry e {QDateTime::currentDateTimeUtc(), kind, message, details};
    write(e);
    append(e);
    compact();
}

void ActivityLog::append(const ActivityEntry &entry)
{
    const bool full = m_entries.size() >= size_t(Capacity);
    if (full)
        m_entries.pop_front();
    m_entries.push_back(entry);
    Q_EMIT recorded(m_entries.back(), full);
}

void ActivityLog::clear()
{
    m_entries.clear();
    Q_EMIT cleared();
}

void ActivityLog::write(const ActivityEntry &entry)
{
    if (!m_file)
        return;
    // One whole line per write, flushed: a crash loses at most the line being written.
    m_file->write(QJsonDocument(toJson(entry)).toJson(QJsonDocument::Compact) + '\n');
    m_file->flush();
    ++m_linesInFile;
}

void ActivityLog::compact()
{
    if (!m_file || m_linesInFile < 2 * Capacity)
        return;
    const QString path = m_file->fileName();
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly)) {
        qCWarning(lcCore) << "activity log: cannot rewrite" << path << ":" << out.errorString();
        return;
    }
    for (const ActivityEntry &e : m_entries)
        out.write(QJsonDocument(toJson(e)).toJson(QJsonDocument::Compact) + '\n');
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (!out.commit()) {
        qCWarning(lcCore) << "activity log: cannot rewrite" << path << ":" << out.errorString();
        return;
    }
    m_file = std::make_unique<QFile>(path);
    if (!m_file->open(QIODevice::WriteOnly | QIODevice::Append)) {
        qCWarning(lcCore) << "activity log: cannot reopen" << path << ":" << m_file->errorString();
        m_file.reset();
        return;
    }
    m_linesInFile = int(m_entries.size());
}

} // namespace isolation
