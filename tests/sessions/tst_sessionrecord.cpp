// A session's record (session.json) keeps its last save and sync as typed outcomes, and its
// sandbox as a typed record: written and read back whole (reports, errors with their conflicts,
// when; the sandbox's state, snapshot, repositories and agent), in the same JSON as before. A
// record without them has none; one whose part is unreadable loses only that part.
#include "sessions/sessionjson.h"
#include "sessions/sessionrecord.h"

#include <QJsonArray>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;

class tst_SessionRecord final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void outcomesRoundTrip();
    void errorsKeepTheirCodeAndConflicts();
    void noOutcomeIsNone();
    void aRecordOnDiskReadsBack();
    void theSandboxRoundTrips();
    void everySandboxStateHasAName();
};

namespace {

SessionRecord base()
{
    SessionRecord r;
    r.id = QStringLiteral("s1");
    r.workspaceId = QStringLiteral("w1");
    r.workspaceName = QStringLiteral("demo");
    r.created = QDateTime::currentDateTimeUtc();
    return r;
}

SessionRecord roundTrip(const SessionRecord &r)
{
    auto back = SessionRecord::fromJson(r.toJson());
    return back ? back.value() : SessionRecord {};
}

} // namespace

void tst_SessionRecord::outcomesRoundTrip()
{
    SessionRecord r = base();
    SaveReport save;
    save.published = true;
    save.committed = true;
    save.commit = "0123abcd";
    save.main = "4567ef01";
    save.saveId = QStringLiteral("save-1");
    save.generation = 7;
    save.segmentBytes = 4096;
    save.files = {QStringLiteral("a.txt"), QStringLiteral("dir/b.txt")};
    const QDateTime at = QDateTime::fromString(QStringLiteral("2026-12-03T09:45:01.234Z"), Qt::ISODateWithMs);
    r.lastSave = LastSave {at, save};
    SyncReport sync;
    sync.outcome = SyncOutcome::ConflictsLeft;
    sync.conflicts = {ConflictedFile {QStringLiteral("a.txt"), 2}};
    sync.bytesDownloaded = 99;
    sync.generation = 8;
    r.lastSync = LastSync {at.addSecs(5), sync};

    const SessionRecord back = roundTrip(r);
    QVERIFY(back.lastSave && back.lastSave->result);
    QCOMPARE(back.lastSave->at, at);
    const SaveReport &s = back.lastSave->result.value();
    QVERIFY(s.published && s.committed);
    QCOMPARE(s.commit, save.commit);
    QCOMPARE(s.saveId, save.saveId);
    QCOMPARE(s.generation, 7);
    QCOMPARE(s.segmentBytes, 4096);
    QCOMPARE(s.files, save.files);
    QVERIFY(back.lastSync && back.lastSync->result);
    QCOMPARE(back.lastSync->at, at.addSecs(5));
    QCOMPARE(back.lastSync->result.value().outcome, SyncOutcome::ConflictsLeft);
    QCOMPARE(back.lastSync->result.value().conflicts.size(), 1);
    QCOMPARE(back.lastSync->result.value().conflicts.first().regions, 2);
    QCOMPARE(back.lastSync->result.value().bytesDownloaded, 99);
    // What the LocalAPI shows is what the record wrote.
    QCOMPARE(toJson(*back.lastSave), toJson(*r.lastSave));
    QCOMPARE(toJson(*back.lastSync), toJson(*r.lastSync));
    QCOMPARE(toJson(*r.lastSave).value(QStringLiteral("outcome")).toString(), QStringLiteral("published"));
    QCOMPARE(toJson(*r.lastSave).value(QStringLiteral("at")).toString(), QStringLiteral("2026-12-03T09:45:01.234Z"));
}

void tst_SessionRecord::errorsKeepTheirCodeAndConflicts()
{
    SessionRecord r = base();
    const QDateTime at = QDateTime::currentDateTimeUtc();
    r.lastSave = LastSave {at, SessionError::movedOn(QStringLiteral("another session saved first"))};
    r.lastSync = LastSync {at, SessionError::conflict(QStringLiteral("2 files conflict"),
                                    {ConflictedFile {QStringLiteral("x"), 1}, ConflictedFile {QStringLiteral("y"), 3}})};
    const SessionRecord back = roundTrip(r);
    QVERIFY(back.lastSave && !back.lastSave->result);
    QCOMPARE(back.lastSave->result.error().code, SessionError::Code::MovedOn);
    QCOMPARE(back.lastSave->result.error().message, QStringLiteral("another session saved first"));
    QCOMPARE(toJson(*back.lastSave).value(QStringLiteral("outcome")).toString(), QStringLiteral("moved_on"));
    QVERIFY(back.lastSync && !back.lastSync->result);
    QCOMPARE(back.lastSync->result.error().code, SessionError::Code::Conflict);
    QCOMPARE(back.lastSync->result.error().conflicts.size(), 2);
    QCOMPARE(back.lastSync->result.error().conflicts.at(1).path, QStringLiteral("y"));
    QCOMPARE(back.lastSync->result.error().conflicts.at(1).regions, 3);
}

void tst_SessionRecord::noOutcomeIsNone()
{
    const SessionRecord back = roundTrip(base());
    QVERIFY(!back.lastSave);
    QVERIFY(!back.lastSync);
    // An outcome without its time cannot be placed against the other: it reads as none.
    QJsonObject o = base().toJson();
    o.insert(QStringLiteral("lastSave"), QJsonObject {{QStringLiteral("outcome"), QStringLiteral("published")}});
    auto r = SessionRecord::fromJson(o);
    QVERIFY(r);
    QVERIFY(!r.value().lastSave);
}

void tst_SessionRecord::aRecordOnDiskReadsBack()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("session.json"));
    SessionRecord r = base();
    r.lastSave = LastSave {QDateTime::currentDateTimeUtc(), SaveReport {}};
    QVERIFY(r.save(file));
    auto back = SessionRecord::load(file);
    QVERIFY(back);
    QVERIFY(back.value().lastSave && back.value().lastSave->result);
    QVERIFY(!back.value().lastSave->result.value().published);
    QCOMPARE(toJson(*back.value().lastSave).value(QStringLiteral("outcome")).toString(), QStringLiteral("nothing_to_save"));
}

void tst_SessionRecord::theSandboxRoundTrips()
{
    SessionRecord r = base();
    QVERIFY(!roundTrip(r).sandbox); // a session without a sandbox has none
    SandboxRecord sandbox;
    sandbox.state = SandboxState::Suspended;
    sandbox.reason = QStringLiteral("resume failed: no runtime");
    sandbox.image = QStringLiteral("debian:12");
    sandbox.launched = QDateTime::fromString(QStringLiteral("2026-12-03T09:00:00Z"), Qt::ISODate);
    sandbox.control = true;
    sandbox.repositories = {ClonedRepository {QStringLiteral("https://example.org/a.git"), QStringLiteral("a"),
        QStringLiteral("0123456789abcdef0123456789abcdef01234567")}};
    sandbox.snapshot = QStringLiteral("snap-1");
    sandbox.agent = AgentRecord {QStringLiteral("agent --go"), AgentState::Waiting, 3, QStringLiteral("cmd-9")};
    r.sandbox = sandbox;
    const SessionRecord back = roundTrip(r);
    QVERIFY(back.sandbox);
    QCOMPARE(back.sandbox->state, SandboxState::Suspended);
    QCOMPARE(back.sandbox->reason, sandbox.reason);
    QCOMPARE(back.sandbox->image, sandbox.image);
    QCOMPARE(back.sandbox->launched, sandbox.launched);
    QVERIFY(back.sandbox->control);
    QCOMPARE(back.sandbox->repositories.size(), 1);
    QCOMPARE(back.sandbox->repositories.first().head, sandbox.repositories.first().head);
    QCOMPARE(back.sandbox->snapshot, QStringLiteral("snap-1"));
    QVERIFY(back.sandbox->agent);
    QCOMPARE(back.sandbox->agent->state, AgentState::Waiting);
    QCOMPARE(back.sandbox->agent->restarts, 3);
    QCOMPARE(back.sandbox->agent->commandId, QStringLiteral("cmd-9"));
    QVERIFY(*back.sandbox == sandbox);
    // A state this version does not know is not taken for another.
    QJsonObject o = r.toJson();
    o.insert(QStringLiteral("sandbox"), QJsonObject {{QStringLiteral("state"), QStringLiteral("hibernating")}});
    auto unknown = SessionRecord::fromJson(o);
    QVERIFY(unknown);
    QVERIFY(!unknown.value().sandbox);
}

void tst_SessionRecord::everySandboxStateHasAName()
{
    QSet<QString> names;
    for (int i = 0; i <= int(SandboxState::Lost); ++i) {
        const auto state = SandboxState(i);
        const QString name = sandboxStateName(state);
        QVERIFY(!names.contains(name));
        names.insert(name);
        QCOMPARE(sandboxStateFromName(name), std::optional<SandboxState>(state));
    }
    QCOMPARE(names.size(), 15);
    for (int i = 0; i <= int(AgentState::Failed); ++i)
        QCOMPARE(agentStateFromName(agentStateName(AgentState(i))), std::optional<AgentState>(AgentState(i)));
}

QTEST_GUILESS_MAIN(tst_SessionRecord)
#include "tst_sessionrecord.moc"
