#include "testsession.h"

#include <QBuffer>
#include <QDebug>

namespace isolation::test {

TestSession TestSession::open(const QString &root, const QString &id, const Clock &clock)
{
    TestSession s;
    s.gitDir = root + QStringLiteral("/sessions/") + id + QStringLiteral("/git");
    s.work = root + QStringLiteral("/sessions/") + id + QStringLiteral("/workspace");
    auto ws = Workspace::open(s.gitDir, s.work, id, clock);
    if (!ws)
        qWarning() << "open failed:" << ws.error().message;
    else
        s.ws = std::move(ws.value());
    return s;
}

bool TestSession::write(const QString &relative, const QByteArray &bytes) const
{
    return GitCli::writeFile(work + QLatin1Char('/') + relative, bytes);
}

QByteArray TestSession::read(const QString &relative) const
{
    return GitCli::readFile(work + QLatin1Char('/') + relative);
}

QByteArray TestSession::save(const QString &message)
{
    auto c = ws->commit({}, message);
    if (!c) {
        qWarning() << "commit failed:" << c.error().message;
        return {};
    }
    auto m = ws->mergeIntoMain();
    if (!m) {
        qWarning() << "merge failed:" << m.error().message;
        return {};
    }
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    auto seg = ws->writeSegment(buffer);
    if (!seg || !seg.value().written) {
        qWarning() << "segment failed:" << (seg ? QStringLiteral("nothing written") : seg.error().message);
        return {};
    }
    if (auto r = ws->markPublished(seg.value()); !r) {
        qWarning() << "publish failed:" << r.error().message;
        return {};
    }
    return buffer.data();
}

Result<ApplyResult, WorkspaceError> TestSession::apply(const QByteArray &bundle)
{
    QBuffer buffer;
    buffer.setData(bundle);
    buffer.open(QIODevice::ReadOnly);
    return ws->applyBundle(buffer);
}

GitRun TestSession::git(const QStringList &args, bool withWorkTree) const
{
    return GitCli::inRepo(gitDir, args, withWorkTree ? work : QString());
}

QByteArray TestSession::rev(const QString &rev) const
{
    return git({QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"), rev}).out.trimmed();
}

QString TestSession::files(const QString &rev) const
{
    return QString::fromUtf8(
        git({QStringLiteral("ls-tree"), QStringLiteral("-r"), QStringLiteral("--name-only"), rev}).out.trimmed());
}

} // namespace isolation::test
