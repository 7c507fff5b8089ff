#include "bundlewriter.h"

#include "gitsupport.h"

#include <QIODevice>
#include <QSet>

namespace isolation {

namespace {

// A prerequisite's comment is informative; keep it one bounded line.
constexpr qsizetype kMaxSubject = 200;

struct Sink
{
    QIODevice *out;
    qint64 bytes = 0;
    QString failure;
    const std::atomic<bool> *cancel = nullptr;
    bool cancelled() const { return cancel && cancel->load(); }
};

} // namespace

Result<BundleStats, WorkspaceError> BundleWriter::write(
    const QList<BundleRef> &refs, const QList<QByteArray> &prerequisites, QIODevice &out) const
{
    BundleHeader header;
    git_revwalk *rawWalk = nullptr;
    if (int rc = git_revwalk_new(&rawWalk, m_repo); rc < 0)
        return git::error(rc, QStringLiteral("cannot walk the history"));
    git::RevwalkPtr walk(rawWalk);

    QSet<QByteArray> seen;
    for (const QByteArray &hex : prerequisites) {
        if (seen.contains(hex))
            continue;
        seen.insert(hex);
        const auto id = git::fromHex(hex);
        if (!id)
            return WorkspaceError::failed(QStringLiteral("bad prerequisite id %1").arg(QString::fromLatin1(hex)));
        git_commit *raw = nullptr;
        if (int rc = git_commit_lookup(&raw, m_repo, &*id); rc < 0)
            return git::error(rc, QStringLiteral("prerequisite %1").arg(QString::fromLatin1(hex)));
        git::CommitPtr commit(raw);
        QByteArray subject = QByteArray(git_commit_summary(commit.get())).left(kMaxSubject);
        subject.replace('\n', ' ').replace('\r', ' ');
        header.prerequisites.append({hex, subject});
        if (int rc = git_revwalk_hide(walk.get(), &*id); rc < 0)
            return git::error(rc, QStringLiteral("cannot hide %1").arg(QString::fromLatin1(hex)));
    }
    for (const BundleRef &ref : refs) {
        const auto id = git::fromHex(ref.id);
        if (!id)
            return WorkspaceError::failed(QStringLiteral("bad ref id %1").arg(QString::fromLatin1(ref.id)));
        if (int rc = git_revwalk_push(walk.get(), &*id); rc < 0)
            return git::error(rc, QStringLiteral("cannot bundle %1").arg(QString::fromUtf8(ref.name)));
        header.refs.append(ref);
    }

    git_packbuilder *rawPack = nullptr;
    if (int rc = git_packbuilder_new(&rawPack, m_repo); rc < 0)
        return git::error(rc, QStringLiteral("cannot start a pack"));
    git::PackbuilderPtr pack(rawPack);
    // The delta search on every core, as git pack-objects does (0: as many threads as CPUs).
    git_packbuilder_set_threads(pack.get(), 0);
    // A Cancel is taken as the pack is written, object by object. Not in the delta search before
    // it: libgit2 1.5's threaded search ignores an error from its progress callback (a thread would
    // retry its work for ever), so the search runs to its end.
    Sink sink {&out, 0, {}, m_cancel};
    if (int rc = git_packbuilder_insert_walk(pack.get(), walk.get()); rc < 0)
        return git::error(rc, QStringLiteral("cannot collect the objects to bundle"));

    const QByteArray head = header.serialize();
    if (out.write(head) != head.size())
        return WorkspaceError::failed(QStringLiteral("cannot write the bundle: %1").arg(out.errorString()));
    sink.bytes = head.size();
    const int rc = git_packbuilder_foreach(
        pack.get(),
        [](void *buf, size_t size, void *payload) -> int {
            auto *s = static_cast<Sink *>(payload);
            if (s->cancelled())
                return -1;
            if (s->out->write(static_cast<const char *>(buf), qint64(size)) != qint64(size)) {
                s->failure = s->out->errorString();
                return -1;
            }
            s->bytes += qint64(size);
            return 0;
        },
        &sink);
    if (sink.cancelled())
        return WorkspaceError::failed(QStringLiteral("cancelled"));
    if (!sink.failure.isEmpty())
        return WorkspaceError::failed(QStringLiteral("cannot write the bundle: %1").arg(sink.failure));
    if (rc < 0)
        return git::error(rc, QStringLiteral("cannot write the pack"));
    return BundleStats {sink.bytes, quint64(git_packbuilder_object_count(pack.get()))};
}

} // namespace isolation
