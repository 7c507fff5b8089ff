// Image pulls against a real registry: tests/runtime/registryserver.py serves the stand-in sandbox
// image (docker save, its layer gzipped) on 127.0.0.1 and throttles the layer, and the real dockerd
// pulls from it. Docker's progress is streamed, a slow pull outlasts the client's total timeout,
// a stalled one fails after the idle limit leaving no image, and cancelling stops one.
#include "runtime/dockerclient.h"
#include "runtime/lifecyclecontainer.h"
#include "sandbox/devcontainerbuild.h"
#include "sandbox/devcontainerconfig.h"

#include "dockertestsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

using namespace isolation;

class tst_ImagePull final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void figuresSumTheLayers();
    void throttledShowsAFewASecond();
    void aSlowPullOutlastsTheTotalTimeout();
    void aStalledPullFailsAfterTheIdleLimit();
    void cancellingStopsAPull();
    void theRuntimeShowsThePullsFigures();
    void aLaunchShowsThePullsFigures();

private:
    // Starts the registry serving the image as isolation-pull-test:<fresh tag>; the name to pull.
    QString startRegistry(double pauseSeconds);
    bool registryLogged(const QByteArray &what, int timeoutMs);

    DockerClient m_docker {QStringLiteral("/var/run/docker.sock")};
    QTemporaryDir m_dir;
    QString m_imageTar;
    QProcess m_registry;
    QByteArray m_registryLog;
    qint64 m_layerBytes = 0;
    QStringList m_pulled; // every name a test pulled (or tried to), removed in cleanup()
};

void tst_ImagePull::initTestCase()
{
    QVERIFY(m_dir.isValid());
    auto d = DockerClient::fromEnvironment();
    QVERIFY2(d.ok(), d.ok() ? "" : qPrintable(d.error().message));
    m_docker = d.value();
    auto v = m_docker.negotiate();
    QVERIFY2(v.ok(), v.ok() ? "" : qPrintable(v.error().message + QStringLiteral(" (./dev test starts dockerd)")));
    m_imageTar = m_dir.filePath(QStringLiteral("sandbox.tar"));
    const test::Run saved = test::docker({QStringLiteral("save"),
        QStringLiteral("isolation-standin/sandbox:" ISOLATION_STANDIN_TAG), QStringLiteral("-o"), m_imageTar});
    QVERIFY2(saved.exitCode == 0, saved.err.constData());
}

void tst_ImagePull::cleanup()
{
    if (m_registry.state() != QProcess::NotRunning) {
        m_registryLog += m_registry.readAllStandardError();
        m_registry.terminate();
        if (!m_registry.waitForFinished(5000)) {
            m_registry.kill();
            m_registry.waitForFinished();
        }
    }
    if (QTest::currentTestFailed())
        qWarning().noquote() << "registry:" << m_registryLog;
    m_registryLog.clear();
    // Newest first: a built image before the pulled one it was built on.
    for (auto it = m_pulled.crbegin(); it != m_pulled.crend(); ++it) {
        auto removed = m_docker.removeImage(*it);
        QVERIFY2(removed.ok(), removed.ok() ? "" : qPrintable(removed.error().message));
    }
    m_pulled.clear();
}

QString tst_ImagePull::startRegistry(double pauseSeconds)
{
    const QString tag = QString::number(QRandomGenerator::global()->generate64(), 16);
    m_registry.setProgram(QStringLiteral(ISOLATION_PYTHON3));
    m_registry.setArguments({QStringLiteral(ISOLATION_REGISTRY_SERVER), m_imageTar,
        QStringLiteral("isolation-pull-test"), tag, QStringLiteral("--pause"), QString::number(pauseSeconds)});
    m_registry.setProcessChannelMode(QProcess::SeparateChannels);
    m_registry.start();
    if (!m_registry.waitForStarted())
        return {};
    QElapsedTimer t;
    t.start();
    QByteArray out;
    while (out.count('\n') < 2 && t.elapsed() < 10000) {
        m_registry.waitForReadyRead(200);
        out += m_registry.readAllStandardOutput();
    }
    const QList<QByteArray> lines = out.trimmed().split('\n');
    if (lines.size() < 2 || !lines.at(0).startsWith("PORT ") || !lines.at(1).startsWith("LAYER ")) {
        qWarning() << "registry did not start:" << out << m_registry.readAllStandardError();
        return {};
    }
    m_layerBytes = lines.at(1).mid(6).toLongLong();
    const QString name = QStringLiteral("127.0.0.1:%1/isolation-pull-test:%2").arg(lines.at(0).mid(5).toInt()).arg(tag);
    m_pulled << name;
    return name;
}

bool tst_ImagePull::registryLogged(const QByteArray &what, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    do {
        m_registryLog += m_registry.readAllStandardError();
        if (m_registryLog.contains(what))
            return true;
        m_registry.waitForReadyRead(200);
    } while (t.elapsed() < timeoutMs);
    return false;
}

void tst_ImagePull::figuresSumTheLayers()
{
    const auto msg = [](const char *status, const char *id, qint64 current = -1, qint64 total = -1) {
        QJsonObject detail;
        if (current >= 0)
            detail.insert(QStringLiteral("current"), current);
        if (total >= 0)
            detail.insert(QStringLiteral("total"), total);
        return QJsonObject {{QStringLiteral("status"), QLatin1String(status)},
            {QStringLiteral("id"), QLatin1String(id)}, {QStringLiteral("progressDetail"), detail}};
    };
    PullProgress p;
    p.take(msg("Pulling from library/x", "1.0"));
    QCOMPARE(p.layers, 0);
    p.take(msg("Pulling fs layer", "aaa"));
    p.take(msg("Pulling fs layer", "bbb"));
    p.take(msg("Already exists", "ccc"));
    QCOMPARE(p.layers, 3);
    QCOMPARE(p.totalBytes, 0); // only the layer that needs nothing has a size yet
    p.take(msg("Downloading", "aaa", 100, 1000));
    QCOMPARE(p.phase, QStringLiteral("pulling"));
    QCOMPARE(p.bytes, 100);
    QCOMPARE(p.totalBytes, 1000);
    p.take(msg("Downloading", "bbb", 50, 500));
    QCOMPARE(p.bytes, 150);
    QCOMPARE(p.totalBytes, 1500);
    p.take(msg("Download complete", "aaa"));
    QCOMPARE(p.bytes, 1050);
    p.take(msg("Extracting", "aaa", 400, 1000)); // bbb still downloading: the phase stays
    QCOMPARE(p.phase, QStringLiteral("pulling"));
    p.take(msg("Verifying Checksum", "bbb")); // every layer down: the extraction's figures now
    QCOMPARE(p.phase, QStringLiteral("extracting"));
    QCOMPARE(p.bytes, 400);
    QCOMPARE(p.totalBytes, 1500);
    p.take(msg("Extracting", "aaa", 600, 1000));
    QCOMPARE(p.bytes, 600);
    p.take(msg("Pull complete", "aaa"));
    p.take(msg("Pull complete", "bbb"));
    QCOMPARE(p.bytes, 1500);
    QCOMPARE(p.totalBytes, 1500);
    p.take(QJsonObject {{QStringLiteral("status"), QStringLiteral("Digest: sha256:00")}});
    QCOMPARE(p.bytes, 1500);
    QCOMPARE(p.message.value(QStringLiteral("status")).toString(), QStringLiteral("Digest: sha256:00"));

    PullProgress shown;
    shown.take(msg("Pulling fs layer", "aaa"));
    shown.take(msg("Pulling fs layer", "bbb"));
    QCOMPARE(shown.describe(), QStringLiteral("pulling, 2 layers"));
    shown.take(msg("Downloading", "aaa", 3 << 19, 3 << 20));
    QCOMPARE(shown.describe(), QStringLiteral("pulling 1.5 of 3.0 MiB"));
}

void tst_ImagePull::throttledShowsAFewASecond()
{
    QList<qint64> shown;
    auto show = PullProgress::throttled([&](const PullProgress &p) { shown << p.bytes; }, 200);
    const auto figures = [](const char *phase, qint64 bytes) {
        PullProgress p;
        p.phase = QLatin1String(phase);
        p.bytes = bytes;
        p.totalBytes = 100;
        return p;
    };
    show(figures("pulling", 10)); // the first
    show(figures("pulling", 20)); // too soon
    QTest::qWait(250);
    show(figures("pulling", 30)); // time
    show(figures("pulling", 100)); // the phase's end, at once
    show(figures("pulling", 100)); // nothing new
    show(figures("extracting", 5)); // a new phase, at once
    show(figures("extracting", 6)); // too soon
    QCOMPARE(shown, (QList<qint64> {10, 30, 100, 5}));
}

void tst_ImagePull::aSlowPullOutlastsTheTotalTimeout()
{
    const QString name = startRegistry(3.0);
    QVERIFY(!name.isEmpty());
    // The old cap was the client's total timeout: 1 s here, and the pull takes longer (the layer
    // at ~1.3 MB/s plus a 3 s pause); the idle limit (6 s) is above the pause.
    DockerClient client(m_docker.socketPath(), 1000);
    QVERIFY(client.negotiate().ok());
    client.setPullIdleLimit(6000);
    QList<PullProgress> updates;
    QStringList statuses;
    QElapsedTimer t;
    t.start();
    auto pulled = client.pullImage(name, [&](const PullProgress &p) {
        updates << p;
        statuses << p.message.value(QStringLiteral("status")).toString();
    });
    const qint64 took = t.elapsed();
    QVERIFY2(pulled.ok(), pulled.ok() ? "" : qPrintable(pulled.error().message));
    QVERIFY2(took > 3000, qPrintable(QString::number(took)));
    // Growing bytes of the download, with the layer's size as the total.
    QList<qint64> downloading;
    for (const PullProgress &p : std::as_const(updates))
        if (p.phase == QLatin1String("pulling") && p.totalBytes > 0
            && (downloading.isEmpty() || p.bytes > downloading.last()))
            downloading << p.bytes;
    QVERIFY2(downloading.size() >= 3, qPrintable(QString::number(downloading.size())));
    QCOMPARE(downloading.last(), m_layerBytes);
    QVERIFY(std::all_of(updates.begin(), updates.end(),
        [&](const PullProgress &p) { return p.totalBytes <= 0 || p.totalBytes == m_layerBytes; }));
    QVERIFY(statuses.contains(QStringLiteral("Downloading")));
    QVERIFY(std::any_of(
        updates.begin(), updates.end(), [](const PullProgress &p) { return p.phase == QLatin1String("extracting"); }));
    QCOMPARE(updates.last().bytes, m_layerBytes);
    QVERIFY2(statuses.last().startsWith(QLatin1String("Status: Downloaded newer image")), qPrintable(statuses.last()));
    qInfo("pulled %lld bytes in %lld ms; %lld messages, %lld growing download figures", m_layerBytes, took,
        qint64(updates.size()), qint64(downloading.size()));
    QVERIFY(registryLogged("BLOB SENT", 1000));
    // Docker has it, as the CLI sees it too.
    QVERIFY(client.inspectImage(name).ok());
    QCOMPARE(test::docker({QStringLiteral("image"), QStringLiteral("inspect"), name}).exitCode, 0);
}

void tst_ImagePull::aStalledPullFailsAfterTheIdleLimit()
{
    const QString name = startRegistry(8.0);
    QVERIFY(!name.isEmpty());
    DockerClient client(m_docker.socketPath());
    QVERIFY(client.negotiate().ok());
    client.setPullIdleLimit(2000);
    qint64 seen = 0;
    QElapsedTimer t;
    t.start();
    auto pulled = client.pullImage(name, [&](const PullProgress &p) { seen = qMax(seen, p.bytes); });
    const qint64 took = t.elapsed();
    QVERIFY(!pulled.ok());
    QCOMPARE(pulled.error().code, DockerError::Code::Failed);
    QCOMPARE(pulled.error().message, QStringLiteral("cannot pull %1: Docker sent no progress for 2 s").arg(name));
    QVERIFY2(seen > 0 && seen < m_layerBytes, qPrintable(QString::number(seen)));
    // Half the layer took ~0.4 s, then 2 s without a byte; well before the pause ends.
    QVERIFY2(took >= 2000 && took < 6000, qPrintable(QString::number(took)));
    qInfo("failed after %lld ms, %lld of %lld bytes down", took, seen, m_layerBytes);
    // Docker dropped the pull with the connection: when the registry goes on, nobody reads.
    QVERIFY(registryLogged("BLOB ABORTED", 15000));
    auto inspected = client.inspectImage(name);
    QVERIFY(!inspected.ok());
    QCOMPARE(inspected.error().code, DockerError::Code::NotFound);
    const test::Run images = test::docker({QStringLiteral("images"), QStringLiteral("-q"), name});
    QCOMPARE(images.exitCode, 0);
    QCOMPARE(images.out.trimmed(), QByteArray());
}

void tst_ImagePull::cancellingStopsAPull()
{
    const QString name = startRegistry(5.0);
    QVERIFY(!name.isEmpty());
    auto cancel = std::make_shared<std::atomic_bool>(false);
    DockerClient client(m_docker.socketPath());
    QVERIFY(client.negotiate().ok());
    client.setCancel(cancel);
    std::thread canceller([cancel] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        *cancel = true;
    });
    QElapsedTimer t;
    t.start();
    auto pulled = client.pullImage(name);
    const qint64 took = t.elapsed();
    canceller.join();
    QVERIFY(!pulled.ok());
    QVERIFY2(pulled.error().message.contains(QLatin1String("cancelled")), qPrintable(pulled.error().message));
    QVERIFY2(took >= 1500 && took < 4000, qPrintable(QString::number(took)));
    QVERIFY(registryLogged("BLOB ABORTED", 15000));
    QCOMPARE(m_docker.inspectImage(name).error().code, DockerError::Code::NotFound);
}

void tst_ImagePull::theRuntimeShowsThePullsFigures()
{
    // The runtime's image set-up pulls a lifecycle image it lacks: the figures become the
    // runtime's reason (what GET /v1/runtime and the tray show), at most 4 a second.
    const QString name = startRegistry(2.0);
    QVERIFY(!name.isEmpty());
    LifecycleContainer::Spec spec;
    spec.engineId = QStringLiteral("pulltest");
    spec.lifecycleImage = name;
    spec.config.execdImage = QStringLiteral("isolation-standin/execd:" ISOLATION_STANDIN_TAG);
    spec.digestsFile = m_dir.filePath(QStringLiteral("runtime.json"));
    spec.configDir = m_dir.filePath(QStringLiteral("runtime"));
    struct Shown
    {
        qint64 at;
        RuntimeState state;
        QString reason;
    };
    QList<Shown> shown;
    QElapsedTimer t;
    t.start();
    spec.progress = [&](RuntimeState state, const QString &reason) { shown << Shown {t.elapsed(), state, reason}; };
    LifecycleContainer container(m_docker, spec);
    const LifecycleContainer::Outcome o = container.prepare();
    QCOMPARE(o.state, RuntimeState::Starting);
    QCOMPARE(o.reason, QStringLiteral("Docker and the runtime images are ready"));
    QVERIFY2(shown.size() >= 3, qPrintable(QString::number(shown.size())));
    const QString total = QString::number(double(m_layerBytes) / (1024.0 * 1024.0), 'f', 1);
    int withFigures = 0;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        QCOMPARE(shown.at(i).state, RuntimeState::Starting);
        QVERIFY2(
            shown.at(i).reason.startsWith(QStringLiteral("Pulling %1: ").arg(name)), qPrintable(shown.at(i).reason));
        if (shown.at(i).reason.endsWith(QStringLiteral(" of %1 MiB").arg(total)))
            ++withFigures;
    }
    // At most 4 a second, plus the first of each phase (pulling, extracting) and their ends.
    QVERIFY2(shown.size() <= 4 * (shown.constLast().at - shown.constFirst().at) / 1000 + 5,
        qPrintable(QString::number(shown.size())));
    // The last says the pull is complete.
    QCOMPARE(shown.constLast().reason, QStringLiteral("Pulling %1: extracting %2 of %2 MiB").arg(name, total));
    QVERIFY2(withFigures >= 2, qPrintable(shown.constLast().reason));
    qInfo("%lld reasons shown, %d with figures; the last: %s", qint64(shown.size()), withFigures,
        qPrintable(shown.constLast().reason));
}

void tst_ImagePull::aLaunchShowsThePullsFigures()
{
    // A devcontainer's features go onto its `image`, pulled when Docker lacks it: the figures
    // are lines of the build's output (which the launch shows as its Building reason).
    const QString name = startRegistry(2.0);
    QVERIFY(!name.isEmpty());
    QTemporaryDir work;
    QVERIFY(work.isValid());
    const QList<std::pair<QString, QByteArray>> files {
        {QStringLiteral(".devcontainer/devcontainer.json"),
            R"({"image": ")" + name.toUtf8() + R"(", "features": {"./hello": {}}})"},
        {QStringLiteral(".devcontainer/hello/devcontainer-feature.json"), R"({"id": "hello"})"},
        {QStringLiteral(".devcontainer/hello/install.sh"), "#!/bin/sh\necho hello-installed\n"},
    };
    for (const auto &[path, bytes] : files) {
        QVERIFY(QDir(work.path()).mkpath(QFileInfo(work.filePath(path)).path()));
        QFile f(work.filePath(path));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        QVERIFY(f.setPermissions(f.permissions() | QFileDevice::ExeOwner));
    }
    auto config = DevcontainerConfig::load(work.path());
    QVERIFY2(config.ok() && config.value(), config.ok() ? "no config" : qPrintable(config.error().message));
    auto plan = DevcontainerBuild::plan(*config.value(), work.path(), QString());
    QVERIFY2(plan.ok() && plan.value(), plan.ok() ? "nothing to build" : qPrintable(plan.error().message));
    QStringList lines;
    auto built = plan.value()->run(m_docker, [&](const QString &line) { lines << line; });
    QVERIFY2(built.ok(), built.ok() ? "" : qPrintable(built.error().message));
    m_pulled << built.value();
    const QString prefix = QStringLiteral("Pulling %1: ").arg(name);
    QStringList figures;
    for (const QString &line : std::as_const(lines))
        if (line.startsWith(prefix))
            figures << line.mid(prefix.size());
    const QString total = QString::number(double(m_layerBytes) / (1024.0 * 1024.0), 'f', 1);
    QVERIFY2(figures.size() >= 3, qPrintable(lines.join(QLatin1Char('\n'))));
    QVERIFY2(figures.contains(QStringLiteral("pulling %1 of %1 MiB").arg(total)), qPrintable(figures.join(u'|')));
    QCOMPARE(figures.constLast(), QStringLiteral("extracting %1 of %1 MiB").arg(total));
    QVERIFY2(lines.contains(QStringLiteral("hello-installed")), qPrintable(lines.join(QLatin1Char('\n'))));
    qInfo("%lld pull lines: %s", qint64(figures.size()), qPrintable(figures.join(QStringLiteral(" | "))));
}

QTEST_GUILESS_MAIN(tst_ImagePull)
#include "tst_imagepull.moc"
