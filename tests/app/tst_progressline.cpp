// The CLI's progress line from session.progress events: operation and phase in words, bytes done
// and total with one unit, the rate over the last seconds of a phase, the time left, the time so
// far, cut to the terminal's width; nothing while idle.
#include "progressline.h"

#include <QJsonObject>
#include <QTest>

using namespace isolation;

namespace {

QJsonObject progressEvent(const char *operation, const char *phase, qint64 bytes = 0, qint64 total = -1)
{
    QJsonObject o {{QStringLiteral("session"), QStringLiteral("s0123456789ab")},
        {QStringLiteral("operation"), QLatin1String(operation)}, {QStringLiteral("phase"), QLatin1String(phase)},
        {QStringLiteral("bytes"), bytes}};
    if (total >= 0)
        o.insert(QStringLiteral("totalBytes"), total);
    return o;
}

constexpr qint64 MiB = 1024 * 1024;

} // namespace

class tst_ProgressLine final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void idleShowsNothing();
    void phaseWithoutBytes();
    void bytesRateAndTimeLeft();
    void rateStartsOverWithEachPhase();
    void cutToTheTerminal();
    void idleAgainClears();
    void sandboxBetweenStates();
};

void tst_ProgressLine::idleShowsNothing()
{
    ProgressLine line;
    QVERIFY(line.isIdle());
    QCOMPARE(line.render(1000, 80), QString());
}

void tst_ProgressLine::phaseWithoutBytes()
{
    ProgressLine line;
    line.update(progressEvent("save", "commit"), 1000);
    QCOMPARE(line.render(1000, 80), QStringLiteral("Saving: committing [0:00]"));
    QCOMPARE(line.render(63500, 80), QStringLiteral("Saving: committing [1:02]"));
    line.update(progressEvent("sync", "download", 3 * MiB / 2), 2000); // another operation: its own clock
    QCOMPARE(line.render(4000, 80), QStringLiteral("Syncing: downloading 1.5 MiB [0:02]"));
}

void tst_ProgressLine::bytesRateAndTimeLeft()
{
    ProgressLine line;
    line.update(progressEvent("save", "upload", 0, 40 * MiB), 0);
    QCOMPARE(line.render(0, 80), QStringLiteral("Saving: uploading 0.0 of 40.0 MiB (0%) [0:00]"));
    QCOMPARE(line.rate(), -1.0); // one reading: no rate yet
    line.update(progressEvent("save", "upload", 8 * MiB, 40 * MiB), 2000);
    QCOMPARE(line.rate(), double(4 * MiB));
    // 32 MiB left at 4 MiB/s: 8 s.
    QCOMPARE(
        line.render(2000, 80), QStringLiteral("Saving: uploading 8.0 of 40.0 MiB (20%), 4.0 MiB/s, 0:08 left [0:02]"));
    // Only the last five seconds count: a faster stretch shows at once.
    line.update(progressEvent("save", "upload", 9 * MiB, 40 * MiB), 8000);
    line.update(progressEvent("save", "upload", 29 * MiB, 40 * MiB), 10000);
    QCOMPARE(line.rate(), double(20 * MiB) / 2);
    QCOMPARE(line.render(10000, 80),
        QStringLiteral("Saving: uploading 29.0 of 40.0 MiB (72%), 10.0 MiB/s, 0:02 left [0:10]"));
    line.update(progressEvent("save", "upload", 40 * MiB, 40 * MiB), 11000);
    QVERIFY(line.render(11000, 80).startsWith(QLatin1String("Saving: uploading 40.0 of 40.0 MiB (100%), ")));
    QVERIFY(!line.render(11000, 80).contains(QLatin1String("left")));
}

void tst_ProgressLine::rateStartsOverWithEachPhase()
{
    ProgressLine line;
    line.update(progressEvent("save", "segment", 0), 0);
    line.update(progressEvent("save", "segment", 100 * MiB), 1000);
    QCOMPARE(line.rate(), double(100 * MiB));
    line.update(progressEvent("save", "upload", 0, 2 * 1024), 1500);
    QCOMPARE(line.rate(), -1.0);
    QCOMPARE(line.render(1500, 80), QStringLiteral("Saving: uploading 0.0 of 2.0 KiB (0%) [0:01]"));
}

void tst_ProgressLine::cutToTheTerminal()
{
    ProgressLine line;
    line.update(progressEvent("save", "upload", 0, 40 * MiB), 0);
    line.update(progressEvent("save", "upload", 8 * MiB, 40 * MiB), 2000);
    const QString full = line.render(2000, 200);
    const QString cut = line.render(2000, 30);
    QCOMPARE(cut.size(), 29); // the last column stays free: some terminals wrap on it
    QVERIFY(cut.endsWith(QChar(0x2026)));
    QVERIFY(full.startsWith(cut.chopped(1)));
    QCOMPARE(line.render(2000, 1).size(), 1);
}

void tst_ProgressLine::idleAgainClears()
{
    ProgressLine line;
    line.update(progressEvent("save", "publish"), 0);
    QVERIFY(!line.isIdle());
    QJsonObject idle = progressEvent("save", "");
    idle.insert(QStringLiteral("operation"), QJsonValue());
    line.update(idle, 100);
    QVERIFY(line.isIdle());
    QCOMPARE(line.render(100, 80), QString());
}

void tst_ProgressLine::sandboxBetweenStates()
{
    auto session = [](const char *state, const char *reason = "") {
        QJsonObject sandbox {{QStringLiteral("state"), QLatin1String(state)}};
        if (*reason)
            sandbox.insert(QStringLiteral("reason"), QLatin1String(reason));
        return QJsonObject {
            {QStringLiteral("id"), QStringLiteral("s0123456789ab")}, {QStringLiteral("sandbox"), sandbox}};
    };
    ProgressLine line;
    line.updateSession(session("running"), 0); // settled: nothing to show
    QVERIFY(line.isIdle());
    line.updateSession(session("building", "Step 1/3 : FROM base"), 1000);
    QCOMPARE(line.render(3000, 80), QStringLiteral("[0:02] Sandbox building: Step 1/3 : FROM base"));
    // A new reason in the same state keeps the state's clock; a new state starts its own.
    line.updateSession(session("building", "Step 2/3 : RUN make   -j2\n"), 4000);
    QCOMPARE(line.render(5000, 80), QStringLiteral("[0:04] Sandbox building: Step 2/3 : RUN make -j2"));
    line.updateSession(session("starting"), 6000);
    QCOMPARE(line.render(6500, 80), QStringLiteral("[0:00] Sandbox starting"));
    // A save running meanwhile (a suspend saves first) has the line; its end gives it back.
    line.update(progressEvent("save", "commit"), 7000);
    QCOMPARE(line.render(7000, 80), QStringLiteral("Saving: committing [0:00]"));
    QJsonObject idle = progressEvent("save", "");
    idle.insert(QStringLiteral("operation"), QJsonValue());
    line.update(idle, 8000);
    QCOMPARE(line.render(8000, 80), QStringLiteral("[0:02] Sandbox starting"));
    // The time stays in sight when the reason is cut.
    line.updateSession(session("building", "Step 3/3 : RUN a very long command line that goes on and on"), 9000);
    QCOMPARE(line.render(9000, 30), QStringLiteral("[0:00] Sandbox building: Ste") + QChar(0x2026));
    line.updateSession(session("running"), 10000);
    QVERIFY(line.isIdle());
    QCOMPARE(line.render(10000, 80), QString());
}

QTEST_GUILESS_MAIN(tst_ProgressLine)
#include "tst_progressline.moc"
