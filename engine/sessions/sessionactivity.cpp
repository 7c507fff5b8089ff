#include "sessionactivity.h"

#include "session.h"
#include "sessionjson.h"

#include "core/activitylog.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QLocale>

namespace isolation {

// The translation context of the entries' words.
class SessionActivity
{
    Q_DECLARE_TR_FUNCTIONS(SessionActivity)
};

namespace {

QString doorText(Door door)
{
    switch (door) {
    case Door::Tray:
        return SessionActivity::tr("from the tray");
    case Door::Cli:
        return SessionActivity::tr("from the command line");
    case Door::Cloud:
        return SessionActivity::tr("from the cloud");
    case Door::Agent:
        return SessionActivity::tr("from the sandbox's agent");
    }
    return {};
}

// The conflicted files' paths, the first 20 (an entry stays small; `changes` lists them all).
QJsonArray conflictPaths(const QList<ConflictedFile> &files)
{
    QJsonArray paths;
    for (const ConflictedFile &f : files) {
        if (paths.size() == 20)
            break;
        paths.append(f.path);
    }
    return paths;
}

QJsonObject base(const Session &s, Door door)
{
    return {{QStringLiteral("session"), s.id()}, {QStringLiteral("workspace"), s.workspaceName()},
        {QStringLiteral("door"), doorName(door)}};
}

} // namespace

QString doorName(Door door)
{
    switch (door) {
    case Door::Tray:
        return QStringLiteral("tray");
    case Door::Cli:
        return QStringLiteral("cli");
    case Door::Cloud:
        return QStringLiteral("cloud");
    case Door::Agent:
        return QStringLiteral("agent");
    }
    return {};
}

Door doorOfClient(QByteArrayView userAgent)
{
    return userAgent.startsWith("isolation-tray") ? Door::Tray : Door::Cli;
}

void recordSave(ActivityLog *log, const Session &s, Door door, const Result<SaveReport, SessionError> &r)
{
    if (!log)
        return;
    QJsonObject d = base(s, door);
    QString message;
    if (r) {
        const SaveReport &report = r.value();
        d.insert(QStringLiteral("outcome"), report.published ? QStringLiteral("published") : QStringLiteral("nothing_to_save"));
        d.insert(QStringLiteral("bytes"), report.segmentBytes);
        d.insert(QStringLiteral("commit"), QString::fromLatin1(report.main));
        // A selection's size, not its paths: an entry stays small however many files were picked.
        if (!report.files.isEmpty())
            d.insert(QStringLiteral("files"), int(report.files.size()));
        message = report.published
            ? SessionActivity::tr("Saved %1 of %2 %3: %4 uploaded")
                  .arg(s.id(), s.workspaceName(), doorText(door), QLocale().formattedDataSize(report.segmentBytes))
            : SessionActivity::tr("Nothing to save in %1 of %2 %3").arg(s.id(), s.workspaceName(), doorText(door));
    } else {
        const SessionError &e = r.error();
        d.insert(QStringLiteral("outcome"), sessionErrorCodeName(e));
        if (!e.conflicts.isEmpty())
            d.insert(QStringLiteral("conflicts"), conflictPaths(e.conflicts));
        message = e.code == SessionError::Code::MovedOn
            ? SessionActivity::tr("Save of %1 of %2 %3 not published: another session saved first (sync, then save again)")
                  .arg(s.id(), s.workspaceName(), doorText(door))
            : SessionActivity::tr("Save of %1 of %2 %3 failed: %4").arg(s.id(), s.workspaceName(), doorText(door), e.message);
    }
    log->record(QStringLiteral("save"), message, d);
}

void recordSync(ActivityLog *log, const Session &s, Door door, const Result<SyncReport, SessionError> &r)
{
    if (!log)
        return;
    QJsonObject d = base(s, door);
    QString message;
    if (r) {
        const SyncReport &report = r.value();
        d.insert(QStringLiteral("outcome"), syncOutcomeName(report.outcome));
        d.insert(QStringLiteral("bytes"), report.bytesDownloaded);
        if (!report.conflicts.isEmpty())
            d.insert(QStringLiteral("conflicts"), conflictPaths(report.conflicts));
        message = report.conflicts.isEmpty()
            ? SessionActivity::tr("Synced %1 of %2 %3 (%4)").arg(s.id(), s.workspaceName(), doorText(door), syncOutcomeName(report.outcome))
            : SessionActivity::tr("Synced %1 of %2 %3: %n file(s) left with conflict markers", nullptr, int(report.conflicts.size()))
                  .arg(s.id(), s.workspaceName(), doorText(door));
    } else {
        const SessionError &e = r.error();
        d.insert(QStringLiteral("outcome"), sessionErrorCodeName(e));
        if (!e.conflicts.isEmpty())
            d.insert(QStringLiteral("conflicts"), conflictPaths(e.conflicts));
        message = e.code == SessionError::Code::Conflict
            ? SessionActivity::tr("Sync of %1 of %2 %3 stopped: %n file(s) in conflict, nothing changed", nullptr, int(e.conflicts.size()))
                  .arg(s.id(), s.workspaceName(), doorText(door))
            : SessionActivity::tr("Sync of %1 of %2 %3 failed: %4").arg(s.id(), s.workspaceName(), doorText(door), e.message);
    }
    log->record(QStringLiteral("sync"), message, d);
}

void recordSession(ActivityLog *log, const QString &event, const QString &sessionId, const QString &workspace,
    Door door, const QJsonObject &more)
{
    if (!log)
        return;
    QJsonObject d = more;
    d.insert(QStringLiteral("event"), event);
    d.insert(QStringLiteral("session"), sessionId);
    d.insert(QStringLiteral("workspace"), workspace);
    d.insert(QStringLiteral("door"), doorName(door));
    QString message;
    if (event == QLatin1String("created"))
        message = SessionActivity::tr("New session %1 of %2 %3");
    else if (event == QLatin1String("launched"))
        message = SessionActivity::tr("Launched session %1 of %2 in a sandbox %3");
    else if (event == QLatin1String("suspended"))
        message = SessionActivity::tr("Suspended session %1 of %2 %3");
    else if (event == QLatin1String("resumed"))
        message = SessionActivity::tr("Resumed session %1 of %2 %3");
    else
        message = SessionActivity::tr("Finished session %1 of %2 %3");
    log->record(QStringLiteral("session"), message.arg(sessionId, workspace, doorText(door)), d);
}

} // namespace isolation
