// GET /ready and GET /metrics of a real `isolation-server up` (paired with the real hub, the
// stand-in runtime on a real dockerd), on the LocalAPI and on `--metrics-listen`: ready only
// while paired, tunnel up and runtime healthy — 503 with the reason while the hub is stopped,
// 200 again once it is back —, and the metrics read by the Prometheus project's own parser
// (python3-prometheus-client), their counters moved by a real save, sync and the hub's restart;
// the tunnel_down health warning shown only after its delay, and gone with its cause.
#include "dockertestsupport.h"
#include "localapi/localapiclient.h"
#include "runtimefixture.h"
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

namespace {

struct Answer
{
    int status = 0;
    QByteArray body;
    QByteArray contentType;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

// The samples of a parsed exposition, by sample name ("isolation_saves_total").
struct Samples
{
    QJsonObject families;
    QString error;

    // The value of the sample `name` whose labels include `labels`; NaN when there is none.
    double value(const QString &name, const QVariantMap &labels = {}) const
    {
        for (const QJsonValue f : families) {
            for (const QJsonValue v : f.toObject().value(QStringLiteral("samples")).toArray()) {
                const QJsonObject s = v.toObject();
                if (s.value(QStringLiteral("name")).toString() != name)
                    continue;
                const QVariantMap has = s.value(QStringLiteral("labels")).toObject().toVariantMap();
                bool all = true;
                for (auto it = labels.cbegin(); it != labels.cend(); ++it)
                    all = all && has.value(it.key()) == it.value();
                if (all)
                    return s.value(QStringLiteral("value")).toDouble();
            }
        }
        return std::nan("");
    }
    QString typeOf(const QString &family) const
    {
        return families.value(family).toObject().value(QStringLiteral("type")).toString();
    }
};

} // namespace

class tst_Readiness final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void readyFollowsTheHub();
    void metricsMoveWithWork();
    void badMetricsListenIsRefused();

private:
    Answer overTcp(const QString &path);
    Answer overSocket(const QString &path);
    Samples metrics();
    bool waitReady(bool ready, int ms);

    RuntimeFixture m_docker;
    std::unique_ptr<SessionFixture> m_fx;
    quint16 m_port = 0;
    QString m_socket;
};

void tst_Readiness::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(1));
    {
        QTcpServer probe; // a free port, let go again for the engine
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        m_port = probe.serverPort();
    }
    QProcessEnvironment env;
    env.insert(QStringLiteral("ISOLATION_RUNTIME"), QStringLiteral("on"));
    env.insert(QStringLiteral("ISOLATION_RUNTIME_LIFECYCLE_IMAGE"), kLifecycle);
    env.insert(QStringLiteral("ISOLATION_RUNTIME_EXECD_IMAGE"), kExecd);
    env.insert(QStringLiteral("ISOLATION_SANDBOX_IMAGE"), kSandbox);
    QVERIFY(m_fx->startEngine(0, env, {QStringLiteral("--metrics-listen"), QStringLiteral("127.0.0.1:%1").arg(m_port)}));
    const QJsonObject status = m_fx->cli(0, {QStringLiteral("status"), QStringLiteral("--json")}).json();
    m_socket = status.value(QStringLiteral("socket")).toString();
    QVERIFY(!m_socket.isEmpty());
    QJsonObject runtime;
    QVERIFY(QTest::qWaitFor(
        [&] {
            runtime = m_fx->cli(0, {QStringLiteral("runtime"), QStringLiteral("status"), QStringLiteral("--json")}).json();
            return runtime.value(QStringLiteral("state")).toString() == QLatin1String("healthy");
        },
        120000));
    const QString engineId = dockerInspect(runtime.value(QStringLiteral("container")).toString())
                                 .value(QStringLiteral("Config"))
                                 .toObject()
                                 .value(QStringLiteral("Labels"))
                                 .toObject()
                                 .value(QStringLiteral("io.isolation.engine"))
                                 .toString();
    QVERIFY(!engineId.isEmpty());
    m_docker.addEngine(engineId);
}

void tst_Readiness::cleanupTestCase()
{
    if (m_fx)
        m_fx->stopEngine(0);
    m_docker.cleanup();
    m_fx.reset();
}

Answer tst_Readiness::overTcp(const QString &path)
{
    QNetworkAccessManager net;
    QNetworkReply *reply = net.get(QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_port).arg(path))));
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished())
        done.wait(30000);
    Answer a;
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.body = reply->readAll();
    a.contentType = reply->rawHeader("Content-Type");
    reply->deleteLater();
    return a;
}

Answer tst_Readiness::overSocket(const QString &path)
{
    auto r = LocalApiClient(m_socket).request("GET", path);
    if (!r)
        return {};
    return {r.value().status, r.value().body, r.value().header("content-type")};
}

Samples tst_Readiness::metrics()
{
    Samples out;
    const Answer a = overSocket(QStringLiteral("/metrics"));
    if (a.status != 200) {
        out.error = QStringLiteral("GET /metrics answered %1").arg(a.status);
        return out;
    }
    QProcess python;
    python.start(QStringLiteral(ISOLATION_PYTHON3), {QStringLiteral(ISOLATION_READ_METRICS)});
    python.write(a.body);
    python.closeWriteChannel();
    if (!python.waitForFinished(30000) || python.exitCode() != 0) {
        out.error = QString::fromUtf8(python.readAllStandardError());
        return out;
    }
    out.families = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    return out;
}

bool tst_Readiness::waitReady(bool ready, int ms)
{
    return QTest::qWaitFor([&] { return overSocket(QStringLiteral("/ready")).status == (ready ? 200 : 503); }, ms);
}

void tst_Readiness::readyFollowsTheHub()
{
    QVERIFY(waitReady(true, 30000));
    Answer a = overTcp(QStringLiteral("/ready"));
    QCOMPARE(a.status, 200);
    QCOMPARE(a.json().value(QStringLiteral("ready")).toBool(), true);
    QCOMPARE(a.json().value(QStringLiteral("reasons")).toArray().size(), 0);
    // The TCP port serves these two and nothing of the LocalAPI.
    for (const char *path : {"/v1/status", "/v1/snapshot", "/v1/activity", "/v1/sessions"})
        QCOMPARE(overTcp(QLatin1String(path)).status, 404);

    // The hub goes away: the tunnel is down, so the engine cannot take a launch.
    QCOMPARE(m_fx->hub().stop(), 0);
    QVERIFY(waitReady(false, 30000));
    a = overSocket(QStringLiteral("/ready"));
    QCOMPARE(a.json().value(QStringLiteral("ready")).toBool(), false);
    const QJsonArray reasons = a.json().value(QStringLiteral("reasons")).toArray();
    QCOMPARE(reasons.size(), 1);
    QVERIFY2(reasons.first().toString().contains(QStringLiteral("tunnel")), qPrintable(reasons.first().toString()));
    QCOMPARE(overTcp(QStringLiteral("/ready")).status, 503);
    QCOMPARE(metrics().value(QStringLiteral("isolation_tunnel_up")), 0.0);

    // The health warning waits 30 s before it is shown (a reconnect after a blip takes less),
    // then says what to do, and since when.
    QElapsedTimer down;
    down.start();
    const auto warnings = [&] {
        return m_fx->cli(0, {QStringLiteral("status"), QStringLiteral("--json")}).json().value(QStringLiteral("warnings")).toArray();
    };
    QTest::qWait(5000);
    QCOMPARE(warnings().size(), 0);
    QJsonArray shown;
    QVERIFY(QTest::qWaitFor([&] { return !(shown = warnings()).isEmpty(); }, 60000));
    QVERIFY2(down.elapsed() >= 25000, qPrintable(QString::number(down.elapsed())));
    const QJsonObject w = shown.first().toObject();
    QCOMPARE(w.value(QStringLiteral("code")).toString(), QStringLiteral("tunnel_down"));
    QCOMPARE(w.value(QStringLiteral("severity")).toString(), QStringLiteral("warning"));
    QVERIFY(w.value(QStringLiteral("message")).toString().contains(QStringLiteral("Check the network")));
    const QDateTime since = QDateTime::fromString(w.value(QStringLiteral("since")).toString(), Qt::ISODate);
    QVERIFY2(since.secsTo(QDateTime::currentDateTimeUtc()) >= 29, qPrintable(since.toString(Qt::ISODate)));
    const CliRun text = m_fx->cli(0, {QStringLiteral("status")});
    QVERIFY2(text.out.contains("Warning:") && text.out.contains("(tunnel_down, since "), text.out.constData());

    // Back: the engine reconnects on its backoff (at most 30 s apart) and is ready again.
    QVERIFY(m_fx->hub().restart());
    QVERIFY(waitReady(true, 90000));
    // The cause gone, the warning goes by itself.
    QVERIFY(QTest::qWaitFor([&] { return warnings().isEmpty(); }, 10000));
    const Samples m = metrics();
    QVERIFY2(m.error.isEmpty(), qPrintable(m.error));
    QCOMPARE(m.value(QStringLiteral("isolation_tunnel_up")), 1.0);
    QVERIFY(m.value(QStringLiteral("isolation_tunnel_reconnects_total")) >= 1);
    QVERIFY(m.value(QStringLiteral("isolation_tunnel_drops_total")) >= 1);
    QCOMPARE(m.value(QStringLiteral("isolation_tunnel_state"), {{QStringLiteral("state"), QStringLiteral("connected")}}), 1.0);
}

void tst_Readiness::metricsMoveWithWork()
{
    const Answer raw = overTcp(QStringLiteral("/metrics"));
    QCOMPARE(raw.status, 200);
    QVERIFY2(raw.contentType.startsWith("text/plain; version=0.0.4"), raw.contentType.constData());
    const Samples before = metrics();
    QVERIFY2(before.error.isEmpty(), qPrintable(before.error));
    QCOMPARE(before.typeOf(QStringLiteral("isolation_saves")), QStringLiteral("counter"));
    QCOMPARE(before.typeOf(QStringLiteral("isolation_save_duration_seconds")), QStringLiteral("histogram"));
    QCOMPARE(before.typeOf(QStringLiteral("isolation_sessions")), QStringLiteral("gauge"));
    QCOMPARE(before.value(QStringLiteral("isolation_paired")), 1.0);
    QCOMPARE(before.value(QStringLiteral("isolation_runtime_healthy")), 1.0);
    QVERIFY(before.value(QStringLiteral("isolation_heartbeats_sent_total")) >= 1);
    const QVariantMap published {{QStringLiteral("outcome"), QStringLiteral("published")}};
    const double saves = before.value(QStringLiteral("isolation_saves_total"), published);
    QVERIFY(!std::isnan(saves));
    const double uploaded = before.value(QStringLiteral("isolation_uploaded_bytes_total"));
    const double saveCount = before.value(QStringLiteral("isolation_save_duration_seconds_count"));
    const double restoreCount = before.value(QStringLiteral("isolation_restore_duration_seconds_count"));

    // Real work through the CLI: a session made (a restore), a file saved, another session synced.
    QVERIFY(!m_fx->createWorkspace(QStringLiteral("measured")).isEmpty());
    const QJsonObject a = m_fx->newSession(0, QStringLiteral("measured"));
    const QJsonObject b = m_fx->newSession(0, QStringLiteral("measured"));
    QVERIFY(!a.isEmpty() && !b.isEmpty());
    QVERIFY(GitCli::writeFile(a.value(QStringLiteral("worktree")).toString() + QStringLiteral("/m.txt"), "measured\n"));
    const CliRun saved = m_fx->cli(0, {QStringLiteral("save"), a.value(QStringLiteral("id")).toString()});
    QVERIFY2(saved.exitCode == 0, qPrintable(saved.describe()));
    const CliRun synced
        = m_fx->cli(0, {QStringLiteral("sync"), b.value(QStringLiteral("id")).toString(), QStringLiteral("--json")});
    QVERIFY2(synced.exitCode == 0, qPrintable(synced.describe()));

    const Samples after = metrics();
    QVERIFY2(after.error.isEmpty(), qPrintable(after.error));
    QCOMPARE(after.value(QStringLiteral("isolation_saves_total"), published), saves + 1);
    QVERIFY(after.value(QStringLiteral("isolation_uploaded_bytes_total")) > uploaded);
    QCOMPARE(after.value(QStringLiteral("isolation_save_duration_seconds_count")), saveCount + 1);
    QVERIFY(after.value(QStringLiteral("isolation_save_duration_seconds_sum")) > 0);
    QCOMPARE(after.value(QStringLiteral("isolation_restore_duration_seconds_count")), restoreCount + 2);
    QCOMPARE(after.value(QStringLiteral("isolation_syncs_total"), {{QStringLiteral("outcome"), QStringLiteral("fast_forwarded")}}),
        before.value(QStringLiteral("isolation_syncs_total"), {{QStringLiteral("outcome"), QStringLiteral("fast_forwarded")}}) + 1);
    // What the sync reports it downloaded (0 here when the engine's warm cache had the segment).
    QCOMPARE(after.value(QStringLiteral("isolation_downloaded_bytes_total")),
        before.value(QStringLiteral("isolation_downloaded_bytes_total"))
            + synced.json().value(QStringLiteral("bytesDownloaded")).toDouble());
    QCOMPARE(after.value(QStringLiteral("isolation_sessions"), {{QStringLiteral("state"), QStringLiteral("ready")}}),
        before.value(QStringLiteral("isolation_sessions"), {{QStringLiteral("state"), QStringLiteral("ready")}}) + 2);
}

// An address the engine cannot serve on stops `up` with a clear message, before anything runs.
void tst_Readiness::badMetricsListenIsRefused()
{
    QProcess up;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QTemporaryDir home;
    env.insert(QStringLiteral("ISOLATION_HOME"), home.path());
    env.insert(QStringLiteral("ISOLATION_RUNTIME"), QStringLiteral("off"));
    up.setProcessEnvironment(env);
    for (const QString &bad : {QStringLiteral("localhost"), QStringLiteral("127.0.0.1:notaport"),
             QStringLiteral("127.0.0.1:%1").arg(m_port)}) { // the last one: taken by the running engine
        up.start(serverBinary(), {QStringLiteral("up"), QStringLiteral("--credential-store"), QStringLiteral("file"),
                                     QStringLiteral("--metrics-listen"), bad});
        QVERIFY(up.waitForFinished(30000));
        QVERIFY2(up.exitCode() != 0, qPrintable(bad));
        const QString err = QString::fromUtf8(up.readAllStandardError() + up.readAllStandardOutput());
        QVERIFY2(err.contains(QStringLiteral("metrics")), qPrintable(err));
    }
}

QTEST_GUILESS_MAIN(tst_Readiness)
#include "tst_readiness.moc"
