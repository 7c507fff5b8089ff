// GET /v1/events and GET /v1/snapshot end to end: real `isolation-server up` processes paired
// with the real hub, driven through the CLI, read through a raw unix socket and through
// `isolation-server events --json`. Saves and syncs show up in order with consecutive ids (a
// real 412 from the hub as "moved_on", a conflicting sync with its conflicts); Last-Event-ID
// replays exactly what was missed; a snapshot's lastEventId loses nothing; an id from before an
// engine restart gets "reset" while the conflict badge survives in the snapshot; a stream lives
// past the LocalAPI's idle timeout; clients that read nothing do not grow the engine's memory.
#include "eventclient.h"
#include "sessionfixture.h"

#include "../workspace/gitcli.h"
#include "localapi/localapiclient.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QTest>

#include <csignal>

using namespace isolation;
using namespace isolation::test;

namespace {

constexpr int kMovedOn = 8;
constexpr int kConflict = 9;

qint64 rssBytes(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong() * 1024;
    }
    return -1;
}

QString idOf(const QJsonObject &session)
{
    return session.value(QStringLiteral("id")).toString();
}

QString workTree(const QJsonObject &session)
{
    return session.value(QStringLiteral("worktree")).toString();
}

} // namespace

class tst_LocalApiEvents final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void saveAndSyncOutcomesInOrder();
    void resumeFromLastEventId();
    void snapshotThenStreamLosesNothing();
    void streamOutlivesIdleTimeout();
    void restartGivesReset();
    void slowReadersAreBounded();

private:
    QString socket(int i) const { return m_fx->home(i) + QStringLiteral("/run/engine.sock"); }
    QJsonObject snapshot(int i) const;
    QJsonObject sessionIn(const QJsonObject &snapshot, const QString &id) const;
    CliRun cli(const QStringList &args) const { return m_fx->cli(0, args); }

    std::unique_ptr<SessionFixture> m_fx;
    QProcess m_follower; // isolation-server events --json, from the first test to the restart
    QList<StreamEvent> m_seen; // what the first test read, all consecutive
    QString m_sessionA;
};

namespace {
// Engine 0's LocalAPI closes a connection idle this long between requests (60 s in use): short,
// so that a stream is seen to outlive it without waiting a minute.
constexpr int kIdleMs = 4000;

QProcessEnvironment shortIdle(QProcessEnvironment env = {})
{
    env.insert(QStringLiteral("ISOLATION_TEST_LOCALAPI_IDLE_MS"), QString::number(kIdleMs));
    return env;
}
} // namespace

void tst_LocalApiEvents::initTestCase()
{
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(2));
    QVERIFY(m_fx->startEngine(0, shortIdle()));
    QVERIFY(m_fx->startEngine(1));
}

void tst_LocalApiEvents::cleanupTestCase()
{
    if (m_follower.state() != QProcess::NotRunning) {
        m_follower.kill();
        m_follower.waitForFinished();
    }
    QCOMPARE(m_fx->stopEngine(0), 0);
    QCOMPARE(m_fx->stopEngine(1), 0);
    m_fx.reset();
}

QJsonObject tst_LocalApiEvents::snapshot(int i) const
{
    auto r = LocalApiClient(socket(i), 10000).call("GET", QStringLiteral("/v1/snapshot"));
    return r ? r.value() : QJsonObject {};
}

QJsonObject tst_LocalApiEvents::sessionIn(const QJsonObject &snapshot, const QString &id) const
{
    for (const QJsonValue v : snapshot.value(QStringLiteral("sessions")).toArray()) {
        if (idOf(v.toObject()) == id)
            return v.toObject();
    }
    return {};
}

void tst_LocalApiEvents::saveAndSyncOutcomesInOrder()
{
    EventClient stream;
    QVERIFY(stream.open(socket(0)));
    QVERIFY(stream.read(1, 1000).isEmpty()); // nothing happens here yet
    const QString start = stream.lastId();
    QVERIFY2(!start.isEmpty(), "the stream starts with the id it is at");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ISOLATION_HOME"), m_fx->home(0));
    m_follower.setProcessEnvironment(env);
    m_follower.start(serverBinary(), {QStringLiteral("events"), QStringLiteral("--json")});
    QVERIFY(m_follower.waitForStarted());

    QVERIFY(!m_fx->createWorkspace(QStringLiteral("events")).isEmpty());
    const QJsonObject a = m_fx->newSession(0, QStringLiteral("events"));
    m_sessionA = idOf(a);
    QVERIFY(GitCli::writeFile(workTree(a) + QStringLiteral("/base.txt"), "base\n"));
    QCOMPARE(cli({QStringLiteral("save"), m_sessionA}).exitCode, 0);
    // The other engine publishes first: A's next save gets the hub's 412.
    const QJsonObject b = m_fx->newSession(1, QStringLiteral("events"));
    QVERIFY(GitCli::writeFile(workTree(b) + QStringLiteral("/base.txt"), "b\n"));
    QCOMPARE(m_fx->cli(1, {QStringLiteral("save"), idOf(b)}).exitCode, 0);
    QVERIFY(GitCli::writeFile(workTree(a) + QStringLiteral("/base.txt"), "a\n"));
    QCOMPARE(cli({QStringLiteral("save"), m_sessionA}).exitCode, kMovedOn);
    QCOMPARE(cli({QStringLiteral("sync"), m_sessionA}).exitCode, kConflict);

    // (Opening a session syncs it too: the conflicting sync is the one to wait for.)
    const auto isSyncOfA = [this](const StreamEvent &e) {
        return e.kind == QLatin1String("sync") && e.data.value(QStringLiteral("session")).toString() == m_sessionA
            && e.data.value(QStringLiteral("outcome")).toString().startsWith(QLatin1String("conflict"));
    };
    QList<StreamEvent> events = stream.readUntil(isSyncOfA, 30000);
    QVERIFY2(!events.isEmpty(), "the sync's outcome came");
    // What follows the outcome: the session as it is now.
    events += stream.readUntil(
        [this](const StreamEvent &e) {
            return e.kind == QLatin1String("session.changed") && idOf(e.data) == m_sessionA;
        },
        10000);

    // One run, every number once, in order, starting right after the id the stream began at.
    const StreamEvent first {start, {}, {}};
    quint64 expected = first.number() + 1;
    for (const StreamEvent &e : std::as_const(events)) {
        QCOMPARE(e.run(), first.run());
        QCOMPARE(e.number(), expected++);
    }

    QStringList story; // A's session, progress and outcome events, condensed
    bool uploadSeen = false;
    for (const StreamEvent &e : std::as_const(events)) {
        const QString session = e.data.value(QStringLiteral("session")).toString();
        if (e.kind == QLatin1String("session.added") && idOf(e.data) == m_sessionA)
            story << QStringLiteral("added");
        else if ((e.kind == QLatin1String("save") || e.kind == QLatin1String("sync")) && session == m_sessionA)
            story << e.kind + QLatin1Char(' ') + e.data.value(QStringLiteral("outcome")).toString();
        if (e.kind == QLatin1String("session.progress") && session == m_sessionA
            && e.data.value(QStringLiteral("phase")).toString() == QLatin1String("upload")) {
            uploadSeen = true;
            if (e.data.contains(QStringLiteral("totalBytes")))
                QVERIFY(e.data.value(QStringLiteral("bytes")).toInteger()
                    <= e.data.value(QStringLiteral("totalBytes")).toInteger());
        }
    }
    m_seen = events;
    QStringList kinds;
    for (const StreamEvent &e : std::as_const(events))
        kinds << e.kind + QLatin1Char(' ') + QString::fromUtf8(QJsonDocument(e.data).toJson(QJsonDocument::Compact).left(160));
    QVERIFY2(story.size() == 5, qPrintable(kinds.join(QLatin1Char('\n'))));
    QCOMPARE(story.first(), QStringLiteral("added"));
    QVERIFY2(story.at(1).startsWith(QLatin1String("sync ")), qPrintable(story.at(1))); // the open's
    QCOMPARE(story.mid(2),
        QStringList({QStringLiteral("save published"), QStringLiteral("save moved_on"),
            QStringLiteral("sync conflict")})); // stopped, nothing changed (docs/architecture.md)
    QVERIFY2(uploadSeen, "the saves' upload phase was reported");
    const QJsonArray conflicts = events.last().data.value(QStringLiteral("conflicts")).toArray();
    QCOMPARE(conflicts, QJsonArray({QStringLiteral("base.txt")}));

    // The CLI printed the same events, with the same ids.
    QTRY_VERIFY_WITH_TIMEOUT(m_follower.peek(1 << 20).contains(events.last().id.toLatin1()), 10000);
    QList<QByteArray> lines = m_follower.readAllStandardOutput().split('\n');
    QStringList cliIds;
    for (const QByteArray &line : std::as_const(lines)) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (!o.isEmpty())
            cliIds << o.value(QStringLiteral("id")).toString();
    }
    QStringList streamIds;
    for (const StreamEvent &e : std::as_const(events))
        streamIds << e.id;
    QVERIFY2(cliIds.endsWith(streamIds.last()) && cliIds.mid(cliIds.indexOf(streamIds.first())) == streamIds,
        qPrintable(cliIds.join(QLatin1Char(' '))));
}

void tst_LocalApiEvents::resumeFromLastEventId()
{
    QVERIFY(m_seen.size() > 4);
    const qsizetype mid = m_seen.size() / 2;
    EventClient resumed;
    QVERIFY(resumed.open(socket(0), m_seen.at(mid).id));
    const QList<StreamEvent> replayed = resumed.read(int(m_seen.size() - mid - 1), 10000);
    QCOMPARE(replayed.size(), m_seen.size() - mid - 1);
    for (qsizetype i = 0; i < replayed.size(); ++i) {
        QCOMPARE(replayed.at(i).id, m_seen.at(mid + 1 + i).id);
        QCOMPARE(replayed.at(i).kind, m_seen.at(mid + 1 + i).kind);
        QCOMPARE(replayed.at(i).data, m_seen.at(mid + 1 + i).data);
    }
}

void tst_LocalApiEvents::snapshotThenStreamLosesNothing()
{
    const QJsonObject snap = snapshot(0);
    const QString last = snap.value(QStringLiteral("lastEventId")).toString();
    QVERIFY2(!last.isEmpty(), QJsonDocument(snap).toJson().constData());
    // Everything the tray shows, in the routes' own forms.
    QCOMPARE(snap.value(QStringLiteral("status")).toObject().value(QStringLiteral("state")).toString(),
        QStringLiteral("online"));
    QVERIFY(snap.value(QStringLiteral("pairing")).toObject().value(QStringLiteral("paired")).toBool());
    QVERIFY(snap.value(QStringLiteral("runtime")).toObject().contains(QStringLiteral("state")));
    QVERIFY(snap.value(QStringLiteral("cache")).toObject().contains(QStringLiteral("maxBytes")));
    QVERIFY(!snap.value(QStringLiteral("activity")).toArray().isEmpty());
    const QJsonObject a = sessionIn(snap, m_sessionA);
    QCOMPARE(a.value(QStringLiteral("conflicts")).toArray(), QJsonArray({QStringLiteral("base.txt")}));
    QVERIFY2(a.value(QStringLiteral("pendingChanges")).isObject(), QJsonDocument(a).toJson().constData());

    // After the snapshot: a new session. The stream from the snapshot's id starts right after it.
    const QJsonObject c = m_fx->newSession(0, QStringLiteral("events"));
    QVERIFY(sessionIn(snap, idOf(c)).isEmpty());
    EventClient stream;
    QVERIFY(stream.open(socket(0), last));
    const QList<StreamEvent> events = stream.readUntil(
        [&c](const StreamEvent &e) { return e.kind == QLatin1String("session.added") && idOf(e.data) == idOf(c); },
        10000);
    QVERIFY(!events.isEmpty());
    const StreamEvent lastSeen {last, {}, {}};
    QCOMPARE(events.first().number(), lastSeen.number() + 1);
}

void tst_LocalApiEvents::streamOutlivesIdleTimeout()
{
    // The LocalAPI closes a connection idle between requests (kIdleMs here): a kept-alive one
    // that asked once is closed...
    QLocalSocket idle;
    idle.connectToServer(socket(0));
    QVERIFY(idle.waitForConnected(5000));
    idle.write("GET /v1/status HTTP/1.1\r\nHost: localhost\r\n\r\n");
    QVERIFY(idle.waitForReadyRead(10000));
    QVERIFY(idle.readAll().startsWith("HTTP/1.1 200"));
    QElapsedTimer quietFor;
    quietFor.start();
    QTRY_VERIFY_WITH_TIMEOUT(idle.state() == QLocalSocket::UnconnectedState, 3 * kIdleMs);
    QVERIFY2(quietFor.elapsed() >= kIdleMs - 500, qPrintable(QString::number(quietFor.elapsed())));
    // ...and a stream, which is inside its one request, is not.
    QElapsedTimer open;
    open.start();
    EventClient stream;
    QVERIFY(stream.open(socket(0)));
    QList<StreamEvent> quiet;
    QVERIFY(!stream.readToEnd(2 * kIdleMs, &quiet)); // the engine did not close it
    QVERIFY(open.elapsed() >= 2 * kIdleMs);
    const QJsonObject d = m_fx->newSession(0, QStringLiteral("events"));
    QVERIFY(!stream
                 .readUntil(
                     [&d](const StreamEvent &e) {
                         return e.kind == QLatin1String("session.added") && idOf(e.data) == idOf(d);
                     },
                     10000)
                 .isEmpty());
}

void tst_LocalApiEvents::restartGivesReset()
{
    QVERIFY(!m_seen.isEmpty());
    const QString before = m_seen.last().id;
    QCOMPARE(m_fx->stopEngine(0), 0);
    // Restarted with a small ASan quarantine, so the next test's RSS says what the engine keeps.
    QProcessEnvironment small = shortIdle();
    small.insert(QStringLiteral("ASAN_OPTIONS"),
        qEnvironmentVariable("ASAN_OPTIONS") + QStringLiteral(":quarantine_size_mb=1:thread_local_quarantine_size_kb=64"));
    QVERIFY(m_fx->startEngine(0, small));
    EventClient stream;
    QVERIFY(stream.open(socket(0), before));
    const QList<StreamEvent> first = stream.read(1, 5000);
    QCOMPARE(first.size(), 1);
    QCOMPARE(first.first().kind, QStringLiteral("reset"));
    QCOMPARE(first.first().data.value(QStringLiteral("reason")).toString(), QStringLiteral("engine_restarted"));
    QVERIFY(first.first().run() != m_seen.last().run());
    // The badge is state: the restarted engine's snapshot still shows A's conflict.
    QCOMPARE(sessionIn(snapshot(0), m_sessionA).value(QStringLiteral("conflicts")).toArray(),
        QJsonArray({QStringLiteral("base.txt")}));
    // The CLI follower reconnected by itself and was told the same.
    QTRY_VERIFY_WITH_TIMEOUT(m_follower.peek(1 << 20).contains("\"event\":\"reset\""), 20000);
    ::kill(pid_t(m_follower.processId()), SIGINT);
    QVERIFY(m_follower.waitForFinished(10000));
    QCOMPARE(m_follower.exitCode(), 0);
}

void tst_LocalApiEvents::slowReadersAreBounded()
{
    // A session whose saves make large events: a selection of 150 long paths, unchanged, is
    // "nothing to save", and each save's outcome and session event carry the whole selection.
    const QJsonObject s = m_fx->newSession(0, QStringLiteral("events"));
    QJsonArray files;
    for (int i = 0; i < 150; ++i) {
        const QString name = QStringLiteral("f%1-").arg(i, 3, 10, QLatin1Char('0')) + QString(140, QLatin1Char('x'));
        QVERIFY(GitCli::writeFile(workTree(s) + QLatin1Char('/') + name, "x\n"));
        files.append(name);
    }
    QCOMPARE(cli({QStringLiteral("save"), idOf(s)}).exitCode, 0);
    const LocalApiClient api(socket(0), 30000);
    const qint64 pid = api.call("GET", QStringLiteral("/v1/status")).value().value(QStringLiteral("pid")).toInteger();

    constexpr int kStuck = 8;
    std::vector<std::unique_ptr<EventClient>> stuck;
    for (int i = 0; i < kStuck; ++i) {
        stuck.push_back(std::make_unique<EventClient>());
        QVERIFY(stuck.back()->open(socket(0)));
    }
    EventClient reader;
    QVERIFY(reader.open(socket(0)));
    QVERIFY(reader.read(1, 500).isEmpty());
    const StreamEvent startAt {reader.lastId(), {}, {}};
    const quint64 startNumber = startAt.number();
    QTest::qWait(500);
    const qint64 rssBefore = rssBytes(pid);

    qint64 eventBytes = 0;
    QList<StreamEvent> read;
    const QJsonObject body {{QStringLiteral("files"), files}};
    for (int i = 0; i < 250; ++i) {
        auto saved = api.call("POST", QStringLiteral("/v1/sessions/%1/save").arg(idOf(s)), body);
        QVERIFY2(saved, qPrintable(saved ? QString() : saved.error().message));
        for (const StreamEvent &e : reader.read(1 << 20, 50))
            read.append(e);
    }
    read += reader.readUntil(
        [](const StreamEvent &e) { return e.kind == QLatin1String("session.changed"); }, 10000);
    QTest::qWait(1000);
    const qint64 rssAfter = rssBytes(pid);
    for (const StreamEvent &e : std::as_const(read))
        eventBytes += QJsonDocument(e.data).toJson(QJsonDocument::Compact).size();
    const qint64 growth = rssAfter - rssBefore;
    qInfo("events: %lld published (%lld bytes of data); engine RSS %lld -> %lld KiB (%+lld KiB) with %d clients "
          "reading nothing",
        qint64(read.size()), eventBytes, rssBefore / 1024, rssAfter / 1024, growth / 1024, kStuck);

    // The reader got every event, in order, and is still subscribed.
    quint64 expected = startNumber + 1;
    for (const StreamEvent &e : std::as_const(read))
        QCOMPARE(e.number(), expected++);
    QVERIFY(reader.state() == SseParser::State::Events);
    // Queued for each stuck client, this would be kStuck times the bytes published; the engine
    // keeps the ring (4 MiB) and at most 64 KiB per socket instead.
    QVERIFY2(eventBytes * kStuck > 64 * 1024 * 1024, "the load would show unbounded queues");
    QVERIFY2(growth < 24 * 1024 * 1024, qPrintable(QStringLiteral("RSS grew by %1 KiB").arg(growth / 1024)));

    // The stuck ones were closed once they fell out of the ring; coming back, they are told to reset.
    QList<StreamEvent> got;
    QVERIFY(stuck.front()->readToEnd(20000, &got));
    QVERIFY(!got.isEmpty() && got.last().number() < read.last().number());
    EventClient back;
    QVERIFY(back.open(socket(0), got.last().id));
    const QList<StreamEvent> reset = back.read(1, 5000);
    QCOMPARE(reset.size(), 1);
    QCOMPARE(reset.first().kind, QStringLiteral("reset"));
    QCOMPARE(reset.first().data.value(QStringLiteral("reason")).toString(), QStringLiteral("too_old"));
}

QTEST_GUILESS_MAIN(tst_LocalApiEvents)
#include "tst_localapievents.moc"
