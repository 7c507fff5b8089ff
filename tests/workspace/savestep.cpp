// Test helper: runs save steps on a session's workspace up to the one named, then kills itself
// with SIGKILL (no destructor, no flush), as a crash or `kill -9` at that point would.
//   workspace-save-step GITDIR WORKTREE SESSION commit|merge|segment|published SEGMENT_FILE
#include "core/clock.h"
#include "workspace/workspace.h"

#include <QCoreApplication>
#include <QFile>

#include <csignal>
#include <cstdio>

using namespace isolation;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() != 6) {
        std::fprintf(stderr, "usage: workspace-save-step GITDIR WORKTREE SESSION STEP SEGMENT_FILE\n");
        return 2;
    }
    const QString step = args.at(4);
    SystemClock clock;
    auto ws = Workspace::open(args.at(1), args.at(2), args.at(3), clock);
    auto fail = [](const QString &what) {
        std::fprintf(stderr, "%s\n", qPrintable(what));
        return 1;
    };
    if (!ws)
        return fail(ws.error().message);
    if (auto c = ws.value()->commit(); !c)
        return fail(c.error().message);
    if (step == QLatin1String("commit"))
        std::raise(SIGKILL);
    if (auto m = ws.value()->mergeIntoMain(); !m)
        return fail(m.error().message);
    if (step == QLatin1String("merge"))
        std::raise(SIGKILL);
    QFile out(args.at(5));
    if (!out.open(QIODevice::WriteOnly))
        return fail(out.errorString());
    auto seg = ws.value()->writeSegment(out);
    if (!seg)
        return fail(seg.error().message);
    out.flush();
    if (step == QLatin1String("segment"))
        std::raise(SIGKILL);
    if (auto p = ws.value()->markPublished(seg.value()); !p)
        return fail(p.error().message);
    std::raise(SIGKILL);
    return 3;
}
