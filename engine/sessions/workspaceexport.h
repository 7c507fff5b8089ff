// One export of a workspace (not of a session): the warm cache's mirror is brought up to the hub's
// manifest, then written out as one ordinary git bundle, or as a .tar.gz of main's files with the
// workspace's definition and without credentials. The output file appears only when complete.
#pragma once

#include "sessionerror.h"

#include "core/result.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <atomic>
#include <functional>
#include <memory>

namespace isolation {

class MirrorSync;
class WarmCache;
class Worker;
class WorkspaceStore;

struct ExportReport
{
    QString path;
    qint64 bytes = 0; // of the file written
    quint64 objects = 0; // bundle: objects in it
    int files = 0; // tree: files in it
    QStringList stripped; // tree: credentials left out
    QString main; // the commit exported
    qint64 generation = 0; // of the manifest exported
    QJsonObject toJson() const;
};

class WorkspaceExport final : public QObject
{
    Q_OBJECT
public:
    enum class Kind { Bundle, Tree };
    struct Target
    {
        QString workspaceId;
        QString name;
        QString createdAt;
    };

    // `worker` and `cache` outlive this object; it owns `store`.
    WorkspaceExport(Kind kind, Target target, std::unique_ptr<WorkspaceStore> store, Worker &worker, WarmCache &cache,
        QObject *parent = nullptr);
    ~WorkspaceExport() override;

    void run(const QString &path, std::function<void(Result<ExportReport, SessionError>)> done);
    // Ends it now with `why` (the store is about to go).
    void abort(const SessionError &why);
    // The member's Cancel: ends it now, Cancelled; the download stops at once, and a file being
    // written is dropped instead of put in place (no file appears, not even in part). False once
    // the file is being put in place (it then ends as it would have).
    bool cancel();
    const Target &target() const { return m_target; }

Q_SIGNALS:
    // How far it got, on this object's thread: "fetch" (the hub's manifest), the mirror's phases
    // ("plan", "download" with bytes of a segment's total, "apply", "update"), then "write".
    void progress(const QString &phase, qint64 bytes, qint64 total);

private:
    void start(const QString &path);
    void finish(Result<ExportReport, SessionError> result);

    Kind m_kind;
    Target m_target;
    std::unique_ptr<WorkspaceStore> m_store;
    Worker &m_worker;
    WarmCache &m_cache;
    std::function<void(Result<ExportReport, SessionError>)> m_done;
    QPointer<MirrorSync> m_mirror; // while the mirror is brought up and the file written
    // Running, then either Cancelled (by cancel()) or Committing (the worker puts the file in
    // place): whichever comes first, once.
    enum Stage { Running, Cancelled, Committing };
    std::shared_ptr<std::atomic_int> m_stage = std::make_shared<std::atomic_int>(Running);
    int m_refetches = 0; // a compacting save removed a segment while it was being read
};

} // namespace isolation
