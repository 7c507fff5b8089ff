// GenerationLedger: the newest manifest generation (and the save that wrote it) this engine has
// seen per workspace, kept in the engine's data directory so that a hub serving an older manifest
// (a rollback) or a second manifest under a seen generation (a fork) is refused, across restarts.
#pragma once

#include "manifest.h"
#include "storeerror.h"

#include <QString>

namespace isolation {

class GenerationLedger
{
public:
    // Files go to `dir` (created 0700 on the first record), one small JSON file per workspace.
    explicit GenerationLedger(QString dir);

    struct Seen
    {
        qint64 generation = 0; // 0: nothing seen yet
        QString saveId;
    };
    Seen seen(const QString &workspaceId) const;

    // Ok when `manifest` is not older than what was seen; Refused (with why) otherwise. Records nothing.
    StoreResult<void> admit(const Manifest &manifest) const;
    // Remembers the manifest's generation when it is newer than the one seen (atomically replaced file).
    StoreResult<void> record(const Manifest &manifest);

private:
    QString fileFor(const QString &workspaceId) const;

    QString m_dir;
};

} // namespace isolation
