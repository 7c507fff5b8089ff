// What one session keeps in DATA/sessions/<id>/session.json so that it survives restarts: its
// workspace, the manifest ETag it remembers (the If-Match of its next save), the last results, and
// a save still to settle or to run again after a kill. Replaced atomically on every change.
#pragma once

#include "core/result.h"
#include "sandbox/sandboxrecord.h"
#include "sessionreports.h"
#include "workspace/bundleheader.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace isolation {

struct SessionRecord
{
    // A manifest went out for this save and its outcome is not known yet: settle it (by its save
    // id) before anything else. `refs` are the segment's, for markPublished.
    struct PendingPublish
    {
        QString saveId;
        qint64 generation = 0;
        QList<BundleRef> refs;
    };
    // A save was asked for and had not finished when the engine stopped: it runs again at the next start.
    struct InterruptedSave
    {
        QStringList files;
        QString message;
    };

    QString id;
    QString workspaceId;
    QString workspaceName;
    QDateTime created;
    QString state; // sessionStateName() when last written, for people reading the file
    QByteArray etag; // the manifest this session's record of the hub is (empty: none yet)
    qint64 generation = 0; // that manifest's generation
    std::optional<LastSave> lastSave; // the last save: when, and its report or error
    std::optional<LastSync> lastSync;
    // The session's sandbox as SessionSandboxes records it; none for a session without one.
    std::optional<SandboxRecord> sandbox;
    std::optional<PendingPublish> pending;
    std::optional<InterruptedSave> interrupted;

    QJsonObject toJson() const;
    static Result<SessionRecord> fromJson(const QJsonObject &o);

    static Result<SessionRecord> load(const QString &file);
    Status save(const QString &file) const;
};

} // namespace isolation
