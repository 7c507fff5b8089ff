#include "workspaceexport.h"

#include "mirrorsync.h"
#include "sessionflow.h"

#include "cache/warmcache.h"
#include "store/workspacestore.h"
#include "workspace/workspacemirror.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QSaveFile>

namespace isolation {

QJsonObject ExportReport::toJson() const
{
    QJsonObject o {{QStringLiteral("path"), path}, {QStringLiteral("bytes"), bytes}, {QStringLiteral("main"), main},
        {QStringLiteral("generation"), generation}};
    if (objects > 0)
        o.insert(QStringLiteral("objects"), qint64(objects));
    if (files > 0 || !stripped.isEmpty()) {
        o.insert(QStringLiteral("files"), files);
        o.insert(QStringLiteral("stripped"), QJsonArray::fromStringList(stripped));
    }
    return o;
}

WorkspaceExport::WorkspaceExport(
    Kind kind, Target target, std::unique_ptr<WorkspaceStore> store, Worker &worker, WarmCache &cache, QObject *parent)
    : QObject(parent)
    , m_kind(kind)
    , m_target(std::move(target))
    , m_store(std::move(store))
    , m_worker(worker)
    , m_cache(cache)
{ }

WorkspaceExport::~WorkspaceExport() = default;

void WorkspaceExport::abort(const SessionError &why)
{
    finish(why);
}

bool WorkspaceExport::cancel()
{
    int running = Running;
    if (!m_done || !m_stage->compare_exchange_strong(running, Cancelled))
        return false;
    if (m_mirror)
        m_mirror->cancel();
    finish(SessionError::cancelled(tr("Export cancelled: no file was written")));
    return true;
}

void WorkspaceExport::finish(Result<ExportReport, SessionError> result)
{
    if (auto done = std::exchange(m_done, nullptr))
        done(result);
    deleteLater();
}

void WorkspaceExport::run(const QString &pathIn, std::function<void(Result<ExportReport, SessionError>)> done)
{
    m_done = std::move(done);
    start(QFileInfo(pathIn).absoluteFilePath());
}

void WorkspaceExport::start(const QString &path)
{
    QPointer<WorkspaceExport> self(this);
    Q_EMIT progress(QStringLiteral("fetch"), 0, -1);
    m_store->fetchManifest({}, [self, path](StoreResult<WorkspaceStore::Fetched> f) {
        if (!self || !self->m_done)
            return;
        if (!f) {
            self->finish(SessionError::from(f.error()));
            return;
        }
        if (!f.value().manifest) {
            self->finish(SessionError::notFound(tr("Workspace %1 has nothing saved yet").arg(self->m_target.name)));
            return;
        }
        const Manifest manifest = *f.value().manifest;
        auto report = std::make_shared<ExportReport>();
        report->path = path;
        report->generation = manifest.generation;
        const Kind kind = self->m_kind;
        const Target target = self->m_target;
        // Runs on the worker, the mirror leased and current: write the file, whole or not at all.
        MirrorSync::Hook write = [self, kind, target, path, report, generation = manifest.generation,
                                     stage = self->m_stage](WarmCache::Lease &lease) -> Result<void, SessionError> {
            const auto stopped = [] { return SessionError::cancelled(tr("Export cancelled: no file was written")); };
            if (stage->load() == Cancelled)
                return stopped();
            QMetaObject::invokeMethod(
                self.data(), [self] { Q_EMIT self->progress(QStringLiteral("write"), 0, -1); }, Qt::QueuedConnection);
            lease.setName(target.name);
            auto mirror = lease.mirror();
            if (!mirror)
                return SessionError::from(mirror.error());
            auto refs = mirror.value()->refs();
            if (!refs)
                return SessionError::from(refs.error());
            for (const BundleRef &r : refs.value()) {
                if (r.name == "refs/heads/main")
                    report->main = QString::fromLatin1(r.id);
            }
            QSaveFile out(path);
            if (!out.open(QIODevice::WriteOnly))
                return SessionError::failed(tr("cannot write %1: %2").arg(path, out.errorString()));
            if (kind == Kind::Bundle) {
                auto written = mirror.value()->exportBundle(out);
                if (!written)
                    return SessionError::from(written.error());
                report->objects = written.value().objects;
            } else {
                // The definition: what the workspace is, never a credential.
                const QJsonObject definition {{QStringLiteral("format"), 1},
                    {QStringLiteral("workspace"),
                        QJsonObject {{QStringLiteral("id"), target.workspaceId}, {QStringLiteral("name"), target.name},
                            {QStringLiteral("createdAt"), target.createdAt}}},
                    {QStringLiteral("main"), report->main}, {QStringLiteral("generation"), generation},
                    {QStringLiteral("exportedAt"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
                auto written = mirror.value()->exportTree(out, QJsonDocument(definition).toJson());
                if (!written)
                    return SessionError::from(written.error());
                report->files = written.value().files;
                report->stripped = written.value().stripped;
            }
            if (int running = Running; !stage->compare_exchange_strong(running, Committing))
                return stopped(); // `out` goes without a commit: the temporary file is removed
            if (!out.commit())
                return SessionError::failed(tr("cannot write %1: %2").arg(path, out.errorString()));
            report->bytes = QFileInfo(path).size();
            return {};
        };
        auto *mirror = new MirrorSync(self->m_worker, *self->m_store, self->m_cache, self);
        self->m_mirror = mirror;
        MirrorSync::Progress moved = [self](const QString &phase, qint64 bytes, qint64 total) {
            if (self)
                Q_EMIT self->progress(phase, bytes, total);
        };
        mirror->run(manifest, f.value().etag, {}, write, moved,
            [self, report, path](Result<MirrorSync::Stats, SessionError> r) {
                if (!self || !self->m_done)
                    return;
                if (!r && r.error().code == SessionError::Code::NotFound && self->m_refetches < kMaxManifestRefetches) {
                    // Another engine compacted the chain while we read it: read the manifest again.
                    ++self->m_refetches;
                    self->start(path);
                    return;
                }
                if (!r) {
                    self->finish(r.error());
                    return;
                }
                self->finish(*report);
            });
    });
}

} // namespace isolation
