#include "workspacestore.h"

#include "segmentfile.h"
#include "segmentstream.h"
#include "storeclient.h"

#include "crypto/objectcipher.h"

#include <QDir>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <openssl/crypto.h>

namespace isolation {

namespace {

constexpr int kOvertakenRetries = 3;

// Runs `work` on the global thread pool and `then` with its result on `context`'s thread, unless
// `context` is gone by then.
template<typename T>
void offThread(QObject *context, std::function<T()> work, std::function<void(T)> then)
{
    auto *watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context, [watcher, then = std::move(then)] {
        watcher->deleteLater();
        then(watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([work = std::move(work)] {
        T result = work();
        // The pool's threads outlive the task (and may outlive OpenSSL's own cleanup at exit):
        // free this thread's OpenSSL state (its DRBGs, its error queue) now, not at thread exit.
        OPENSSL_thread_stop();
        return result;
    }));
}

} // namespace

WorkspaceStore::WorkspaceStore(StoreClient *client, QString workspaceId, QString sessionId, QByteArrayView memberKey,
    QString stateDir, QString tempDir, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_registeredWith(client)
    , m_workspaceId(std::move(workspaceId))
    , m_sessionId(std::move(sessionId))
    , m_key(workspaceKey(memberKey, m_workspaceId))
    , m_ledger(std::move(stateDir))
    , m_tempDir(std::move(tempDir))
{
    if (m_client)
        m_client->addSession(m_workspaceId, m_sessionId);
}

WorkspaceStore::~WorkspaceStore()
{
    // A reader waiting for bytes that will not come now (its thread may be joined next).
    for (const std::weak_ptr<SegmentSpool> &stream : std::as_const(m_streams)) {
        if (auto spool = stream.lock())
            spool->cancel(StoreError::local(QStringLiteral("the workspace's store closed")));
    }
    if (m_registeredWith)
        m_registeredWith->removeSession(m_workspaceId, m_sessionId);
}

qint64 WorkspaceStore::lastSeenGeneration() const
{
    return m_ledger.seen(m_workspaceId).generation;
}

StoreResult<Manifest> WorkspaceStore::accept(const QByteArray &sealed)
{
    StoreResult<Manifest> m = Manifest::open(m_key.view(), m_workspaceId, sealed);
    if (!m)
        return m;
    if (StoreResult<void> ok = m_ledger.admit(m.value()); !ok)
        return ok.error();
    return m;
}

void WorkspaceStore::adopt(const Manifest &manifest, const QByteArray &etag)
{
    if (StoreResult<void> ok = m_ledger.record(manifest); !ok)
        qCWarning(lcStore) << "cannot remember the generation of workspace" << m_workspaceId << ":"
                           << ok.error().message;
    m_current = manifest;
    m_currentEtag = etag;
}

void WorkspaceStore::fetchManifest(const QByteArray &knownEtag, std::function<void(StoreResult<Fetched>)> done)
{
    fetchManifest(knownEtag, std::move(done), kOvertakenRetries);
}

void WorkspaceStore::fetchManifest(
    const QByteArray &knownEtag, std::function<void(StoreResult<Fetched>)> done, int retries)
{
    QPointer<WorkspaceStore> self(this);
    // A manifest older than the newest seen is a rollback, unless that newer one was seen while
    // this request was on its way (another session of this computer published meanwhile): then
    // the answer was merely overtaken, and the manifest is asked for again.
    const qint64 seenBefore = lastSeenGeneration();
    auto overtaken = [this, knownEtag, done, retries, seenBefore](qint64 served) {
        if (retries <= 0 || served < seenBefore)
            return false;
        qCInfo(lcStore) << "manifest of workspace" << m_workspaceId << "overtaken by a newer one; asking again";
        fetchManifest(knownEtag, done, retries - 1);
        return true;
    };
    m_client->getManifest(
        m_workspaceId, knownEtag, [this, self, done, overtaken](StoreResult<StoreClient::ManifestReply> r) {
            if (!self)
                return;
            if (!r) {
                done(r.error());
                return;
            }
            const StoreClient::ManifestReply &reply = r.value();
            Fetched f;
            f.etag = reply.etag;
            if (!reply.exists) {
                const qint64 seen = lastSeenGeneration();
                if (seen > 0 && overtaken(0))
                    return;
                if (seen > 0) {
                    done(StoreError::refused(
                        QStringLiteral("the hub has no manifest for workspace %1, but this computer "
                                       "has seen generation %2 of it: refusing a rollback")
                            .arg(m_workspaceId)
                            .arg(seen)));
                    return;
                }
                m_current.reset();
                m_currentEtag.clear();
                done(f);
                return;
            }
            if (reply.notModified) {
                f.moved = false;
                done(f);
                return;
            }
            StoreResult<Manifest> m = accept(reply.body);
            if (!m) {
                if (auto opened = Manifest::open(m_key.view(), m_workspaceId, reply.body);
                    opened && overtaken(opened.value().generation))
                    return;
                qCWarning(lcStore) << "refusing the manifest of workspace" << m_workspaceId << ":" << m.error().message;
                done(m.error());
                return;
            }
            adopt(m.value(), reply.etag);
            f.manifest = std::move(m).value();
            done(f);
        });
}

void WorkspaceStore::uploadSegment(const QString &bundlePath, ManifestSegment::Kind kind,
    const QMap<QString, QString> &refs, const QStringList &prerequisites,
    std::function<void(StoreResult<ManifestSegment>)> done, StoreClient::Progress progress)
{
    if (!QDir().mkpath(m_tempDir)) {
        done(StoreError::local(QStringLiteral("cannot create %1").arg(m_tempDir)));
        return;
    }
    ManifestSegment segment;
    segment.id = Manifest::newSegmentId();
    segment.kind = kind;
    segment.refs = refs;
    segment.prerequisites = prerequisites;
    const QString sealedPath = m_tempDir + QStringLiteral("/segment-") + segment.id + QStringLiteral(".sealed");
    const ObjectBinding binding = Manifest::segmentBinding(m_workspaceId, segment.id);
    QPointer<WorkspaceStore> self(this);
    offThread<StoreResult<SealedSegment>>(
        this,
        [key = m_key, binding, bundlePath, sealedPath] {
            return sealSegmentFile(key, binding, bundlePath, sealedPath);
        },
        [this, self, segment, sealedPath, done, progress](StoreResult<SealedSegment> sealed) mutable {
            if (!sealed) {
                done(sealed.error());
                return;
            }
            segment.name = sealed.value().name;
            segment.size = sealed.value().size;
            m_client->putSegment(
                m_workspaceId, segment.name, sealedPath,
                [self, segment, sealedPath, done](StoreResult<void> put) {
                    QFile::remove(sealedPath);
                    if (!self)
                        return;
                    if (!put) {
                        done(put.error());
                        return;
                    }
                    qCInfo(lcStore) << "uploaded segment" << segment.name.left(12) << segment.size << "bytes";
                    done(segment);
                },
                progress);
        });
}

void WorkspaceStore::publish(
    const Manifest &nextIn, const QByteArray &ifMatch, std::function<void(StoreResult<Publication>)> done)
{
    Manifest next = nextIn;
    if (next.workspaceId.isEmpty())
        next.workspaceId = m_workspaceId;
    if (next.workspaceId != m_workspaceId || next.saveId.isEmpty() || !next.carriesSave(next.saveId)) {
        done(StoreError::local(QStringLiteral("a manifest to publish needs this workspace's id and its save id")));
        return;
    }
    const qint64 seen = lastSeenGeneration();
    if (next.generation <= seen) {
        done(StoreError::local(QStringLiteral("a manifest to publish must be newer than generation %1").arg(seen)));
        return;
    }
    StoreResult<QByteArray> sealed = next.seal(m_key.view());
    if (!sealed) {
        done(sealed.error());
        return;
    }
    // What a compacting save leaves behind is known only against the manifest it replaces.
    std::optional<Manifest> previous;
    if (m_current && !ifMatch.isEmpty() && ifMatch == m_currentEtag)
        previous = m_current;
    QPointer<WorkspaceStore> self(this);
    auto landed = [this, next, previous](const QByteArray &etag) {
        adopt(next, etag);
        if (previous)
            deleteSegments(previous->segmentsDroppedBy(next));
        qCInfo(lcStore) << "published generation" << next.generation << "of workspace" << m_workspaceId;
    };
    m_client->putManifest(
        m_workspaceId, sealed.value(), ifMatch, [this, self, next, done, landed](StoreResult<StoreClient::PutReply> r) {
            if (!self)
                return;
            if (!r) {
                done(r.error());
                return;
            }
            switch (r.value().outcome) {
            case StoreClient::PutReply::Outcome::Stored:
                landed(r.value().etag);
                done(Publication {PublishOutcome::Published, r.value().etag});
                return;
            case StoreClient::PutReply::Outcome::Unknown:
                done(Publication {PublishOutcome::Unknown, {}});
                return;
            case StoreClient::PutReply::Outcome::PreconditionFailed:
                break;
            }
            // 412: either another save won, or an earlier copy of this very request did (an HTTP
            // client may resend a request whose connection broke). The manifest says which.
            settle(next.saveId, [this, next, done, landed](StoreResult<Settlement> s) {
                if (!s) {
                    done(s.error().retryable() ? StoreResult<Publication>(Publication {PublishOutcome::Unknown, {}})
                                               : StoreResult<Publication>(s.error()));
                    return;
                }
                if (s.value().published && s.value().manifest && s.value().manifest->saveId == next.saveId) {
                    landed(s.value().etag);
                    done(Publication {PublishOutcome::Published, s.value().etag});
                    return;
                }
                if (!s.value().published && s.value().manifest) {
                    // Segments uploaded for this save are named by nothing and never will be (a new
                    // save makes new ones): nobody else knows their names, so they can go at once.
                    deleteSegments(next.segmentsDroppedBy(*s.value().manifest));
                }
                done(Publication {s.value().published ? PublishOutcome::Published : PublishOutcome::MovedOn,
                    s.value().published ? s.value().etag : QByteArray()});
            });
        });
}

void WorkspaceStore::settle(const QString &saveId, std::function<void(StoreResult<Settlement>)> done)
{
    fetchManifest({}, [saveId, done](StoreResult<Fetched> f) {
        if (!f) {
            done(f.error());
            return;
        }
        Settlement s;
        s.etag = f.value().etag;
        s.manifest = f.value().manifest;
        s.published = s.manifest && s.manifest->carriesSave(saveId);
        qCInfo(lcStore) << "settled save" << saveId << (s.published ? "as published" : "as not published");
        done(s);
    });
}

void WorkspaceStore::deleteSegments(const QStringList &names)
{
    for (const QString &name : names) {
        m_client->deleteSegment(m_workspaceId, name, [name](StoreResult<void> r) {
            if (!r)
                qCInfo(lcStore) << "could not delete superseded segment" << name.left(12) << ":" << r.error().message;
        });
    }
}

StoreResult<std::shared_ptr<SegmentStream>> WorkspaceStore::streamSegment(
    const ManifestSegment &segment, std::function<void(StoreResult<void>)> downloaded, StoreClient::Progress progress)
{
    if (!QDir().mkpath(m_tempDir))
        return StoreError::local(QStringLiteral("cannot create %1").arg(m_tempDir));
    auto spool = SegmentSpool::create(m_tempDir);
    if (!spool)
        return spool.error();
    m_streams.removeIf([](const std::weak_ptr<SegmentSpool> &s) { return s.expired(); });
    m_streams.append(spool.value());
    auto stream = std::make_shared<SegmentStream>(
        spool.value(), m_key, Manifest::segmentBinding(m_workspaceId, segment.id), segment.name, segment.size);
    auto sink = std::make_shared<SpoolSink>(spool.value(), segment.size, std::move(progress));
    QPointer<WorkspaceStore> self(this);
    m_client->getSegment(m_workspaceId, segment.name, sink.get(),
        [self, sink, spool = spool.value(), downloaded](StoreResult<qint64> got) {
            // The reader learns first, whether or not anyone still waits for `downloaded`.
            spool->end(got ? std::nullopt : std::optional<StoreError>(got.error()));
            if (self && downloaded)
                downloaded(got ? StoreResult<void>() : StoreResult<void>(got.error()));
        });
    return stream;
}

void WorkspaceStore::downloadSegment(const ManifestSegment &segment, const QString &outPath,
    std::function<void(StoreResult<void>)> done, StoreClient::Progress progress)
{
    auto stream = std::make_shared<std::shared_ptr<SegmentStream>>();
    auto started = streamSegment(
        segment,
        [this, stream, outPath, done](StoreResult<void> got) {
            if (!got) {
                done(got.error());
                return;
            }
            // Downloaded whole: reading it back off this thread never waits.
            offThread<StoreResult<void>>(
                this, [stream = *stream, outPath] { return saveSegment(*stream, outPath); }, done);
        },
        progress);
    if (!started) {
        done(started.error());
        return;
    }
    *stream = started.value();
}

} // namespace isolation
