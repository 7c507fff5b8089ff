// devcontainer.json's `build` on a real dockerd: a Dockerfile FROM the stand-in sandbox image (a
// build arg, a file of the context) and a local feature (an option) build an image once, its output
// coming as build lines; the session's sandbox runs in it (a command sees what the build and the
// feature wrote); a second session with the same files reuses the image (same id, no build step);
// a feature goes onto an `image` as well.
// A failing step fails the launch with Docker's message; a build has no network (the loopback
// only); a removal during a build cancels it. Every image made here is removed.
#include "runtime/dockerclient.h"
#include "runtime/lifecycleclient.h"
#include "sandbox/sandboxlauncher.h"

#include "runtimefixture.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QUuid>

using namespace isolation;
using namespace isolation::test;

class tst_DevcontainerBuild final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void buildsOnceThenReuses();
    void featuresOnAnImage();
    void failingStepFailsTheLaunch();
    void removalCancelsTheBuild();

private:
    // A session's worktree (in the session directory the mount policy allows) with these files.
    QString worktree(const QString &session, const QList<std::pair<QString, QByteArray>> &files);
    Result<void, SandboxError> launch(SandboxLauncher &launcher, const LaunchRequest &request);
    QByteArray inSandbox(SandboxLauncher &launcher, const QString &command);
    static QStringList builtImages(); // ids of the images labelled as devcontainer builds

    RuntimeFixture m_fixture;
    QString m_data;
    QNetworkAccessManager m_net;
    std::unique_ptr<RuntimeManager> m_runtime;
    std::unique_ptr<LifecycleClient> m_lifecycle;
    QStringList m_imagesBefore;
};

void tst_DevcontainerBuild::initTestCase()
{
    const QString missing = RuntimeFixture::missing();
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    m_imagesBefore = builtImages();
    m_runtime = m_fixture.makeManager(QStringLiteral("build"), kLifecycle);
    m_data = m_fixture.root() + QStringLiteral("/build");
    m_runtime->start();
    QVERIFY(RuntimeFixture::waitHealthy(m_runtime.get()));
    m_lifecycle = std::make_unique<LifecycleClient>(
        &m_net, m_runtime->lifecycleUrl(), m_runtime->apiKey(), &m_runtime->mountPolicy());
}

void tst_DevcontainerBuild::cleanupTestCase()
{
    m_lifecycle.reset();
    if (m_runtime)
        m_runtime->stop();
    m_runtime.reset();
    m_fixture.cleanup();
    // The images built here (by their label), not those of other runs or engineers.
    for (const QString &id : builtImages()) {
        if (!m_imagesBefore.contains(id))
            docker({QStringLiteral("rmi"), QStringLiteral("-f"), id});
    }
}

QStringList tst_DevcontainerBuild::builtImages()
{
    const Run r
        = docker({QStringLiteral("image"), QStringLiteral("ls"), QStringLiteral("-q"), QStringLiteral("--no-trunc"),
            QStringLiteral("--filter"), QStringLiteral("label=") + QLatin1String(DevcontainerBuild::kLabel)});
    return QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QString tst_DevcontainerBuild::worktree(const QString &session, const QList<std::pair<QString, QByteArray>> &files)
{
    const QString path = m_data + QStringLiteral("/sessions/") + session + QStringLiteral("/workspace");
    for (const auto &[name, bytes] : files) {
        QDir().mkpath(QFileInfo(path + QLatin1Char('/') + name).path());
        QFile f(path + QLatin1Char('/') + name);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return {};
    }
    return path;
}

Result<void, SandboxError> tst_DevcontainerBuild::launch(SandboxLauncher &launcher, const LaunchRequest &request)
{
    auto r = await<Result<void, SandboxError>>([&](auto done) { launcher.launch(request, nullptr, done); }, 120000);
    return r ? *r : Result<void, SandboxError>(SandboxError::failed(QStringLiteral("the launch never answered")));
}

QByteArray tst_DevcontainerBuild::inSandbox(SandboxLauncher &launcher, const QString &command)
{
    auto r = await<Result<CommandOutput, ExecdError>>(
        [&](auto done) { launcher.execd()->runCommand(launcher.command(command), done); });
    return r && r->ok() ? r->value().stdOut : QByteArray("(no answer)");
}

void tst_DevcontainerBuild::buildsOnceThenReuses()
{
    // A marker fresh for this run: no earlier run's image has these inputs.
    const QByteArray marker = "marker-" + QUuid::createUuid().toByteArray(QUuid::Id128);
    const QList<std::pair<QString, QByteArray>> files {
        {QStringLiteral(".devcontainer/devcontainer.json"),
            R"({
            "name": "built", // comments and harmless keys are fine
            "build": {"dockerfile": "Dockerfile", "context": "..", "args": {"MARKER": ")"
                + marker + R"("}},
            "features": {"./hello": {"greeting": "bonjour"}},
            "containerEnv": {"FROM_CONFIG": "yes"},
        })"},
        {QStringLiteral(".devcontainer/Dockerfile"),
            "FROM " + kSandbox.toUtf8()
                + "\nARG MARKER\nCOPY notes/context.txt /opt/context.txt\nRUN echo \"$MARKER\" > /opt/marker\n"},
        {QStringLiteral("notes/context.txt"), "from the context\n"},
        {QStringLiteral(".devcontainer/hello/devcontainer-feature.json"),
            R"({"id": "hello", "version": "1.0.0", "options": {"greeting": {"type": "string", "default": "hi"}},
                "containerEnv": {"HELLO_HOME": "/opt/hello"}})"},
        {QStringLiteral(".devcontainer/hello/install.sh"),
            "#!/bin/sh\nset -e\nmkdir -p /opt/hello\necho \"$GREETING\" > /opt/hello/greeting\necho "
            "feature-installed\n"},
    };

    QString tag;
    QString imageId;
    for (const QString &session : {QStringLiteral("dc-first"), QStringLiteral("dc-second")}) {
        const bool first = session == QLatin1String("dc-first");
        const QString work = worktree(session, files);
        QVERIFY(!work.isEmpty());
        auto request = LaunchRequest::fromWorkspace(session, work, QStringLiteral("unused:1"));
        QVERIFY2(request.ok(), request.ok() ? "" : qPrintable(request.error().message));
        QVERIFY(request.value().build);

        SandboxLauncher launcher(&m_net, m_lifecycle.get());
        QSignalSpy lines(&launcher, &SandboxLauncher::buildOutput);
        QSignalSpy states(&launcher, &SandboxLauncher::stateChanged);
        QElapsedTimer took;
        took.start();
        auto launched = launch(launcher, request.value());
        QVERIFY2(launched.ok(), launched.ok() ? "" : qPrintable(launched.error().message));
        qInfo() << session << "launched in" << took.elapsed() << "ms";
        QCOMPARE(states.first().first().value<SandboxState>(), SandboxState::Building);
        QStringList output;
        for (const QList<QVariant> &l : lines)
            output << l.first().toString();
        const QString all = output.join(QLatin1Char('\n'));

        const QString image = launcher.request().image;
        QVERIFY2(image.startsWith(QLatin1String("isolation-devcontainer:")), qPrintable(image));
        const QString id = dockerInspect(image).value(QStringLiteral("Id")).toString();
        QVERIFY(!id.isEmpty());
        if (first) {
            // Built: Docker's steps came as lines, the feature's install.sh among them.
            QVERIFY2(all.contains(QStringLiteral("Step 1/")), qPrintable(all));
            QVERIFY2(all.contains(QStringLiteral("feature-installed")), qPrintable(all));
            tag = image;
            imageId = id;
        } else {
            // The same inputs: the same image, not built again.
            QCOMPARE(image, tag);
            QCOMPARE(id, imageId);
            QVERIFY2(!all.contains(QStringLiteral("Step ")), qPrintable(all));
            QVERIFY2(all.contains(QStringLiteral("Reusing")), qPrintable(all));
        }

        // The session runs in it: the build's marker and context file, the feature's output and
        // environment, devcontainer.json's environment.
        QCOMPARE(inSandbox(launcher,
                     QStringLiteral("cat /opt/marker /opt/context.txt /opt/hello/greeting; "
                                    "echo \"$HELLO_HOME $FROM_CONFIG\"; id -u")),
            marker + "\nfrom the context\nbonjour\n/opt/hello yes\n0\n");
        auto removed = await<Result<void, SandboxError>>([&](auto done) { launcher.remove(done); });
        QVERIFY(removed && removed->ok());
    }
}

void tst_DevcontainerBuild::featuresOnAnImage()
{
    // No Dockerfile: the feature goes onto `image`, with its option's default.
    const QByteArray tag = QUuid::createUuid().toByteArray(QUuid::Id128);
    const QString work = worktree(QStringLiteral("dc-image"),
        {{QStringLiteral(".devcontainer/devcontainer.json"),
             R"({"image": ")" + kSandbox.toUtf8() + R"(", "features": {"./hello": {}}})"},
            {QStringLiteral(".devcontainer/hello/devcontainer-feature.json"),
                R"({"id": "hello", "options": {"greeting": {"type": "string", "default": "hi-)" + tag + R"("}}})"},
            {QStringLiteral(".devcontainer/hello/install.sh"),
                "#!/bin/sh\nmkdir -p /opt/hello && echo \"$GREETING\" > /opt/hello/greeting\n"}});
    auto request = LaunchRequest::fromWorkspace(QStringLiteral("dc-image"), work, QStringLiteral("unused:1"));
    QVERIFY2(request.ok(), request.ok() ? "" : qPrintable(request.error().message));
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    auto launched = launch(launcher, request.value());
    QVERIFY2(launched.ok(), launched.ok() ? "" : qPrintable(launched.error().message));
    QVERIFY(launcher.request().image.startsWith(QLatin1String("isolation-devcontainer:")));
    QCOMPARE(inSandbox(launcher, QStringLiteral("cat /opt/hello/greeting")), "hi-" + tag + "\n");
    auto removed = await<Result<void, SandboxError>>([&](auto done) { launcher.remove(done); });
    QVERIFY(removed && removed->ok());
}

void tst_DevcontainerBuild::failingStepFailsTheLaunch()
{
    // The step says which network interfaces it has (a build has no network: the loopback only),
    // then fails.
    const QString work = worktree(QStringLiteral("dc-fail"),
        {{QStringLiteral(".devcontainer.json"), R"({"build": {"dockerfile": "Dockerfile"}})"},
            {QStringLiteral("Dockerfile"),
                "FROM " + kSandbox.toUtf8()
                    + "\nRUN echo \"interfaces: $(ls /sys/class/net | tr '\\n' ' ')\" && exit 3\n"}});
    auto request = LaunchRequest::fromWorkspace(QStringLiteral("dc-fail"), work, {});
    QVERIFY(request.ok());
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    QSignalSpy lines(&launcher, &SandboxLauncher::buildOutput);
    auto launched = launch(launcher, request.value());
    QVERIFY(!launched.ok());
    QCOMPARE(launcher.state(), SandboxState::Failed);
    QVERIFY(launcher.sandboxId().isEmpty()); // nothing was created
    QVERIFY2(launched.error().message.contains(QStringLiteral("did not build")), qPrintable(launched.error().message));
    QVERIFY2(launched.error().message.contains(QStringLiteral("non-zero code")), qPrintable(launched.error().message));
    QStringList output;
    for (const QList<QVariant> &l : lines)
        output << l.first().toString();
    QVERIFY2(output.contains(QStringLiteral("interfaces: lo")), qPrintable(output.join(QLatin1Char('\n'))));
}

void tst_DevcontainerBuild::removalCancelsTheBuild()
{
    const QString work = worktree(QStringLiteral("dc-cancel"),
        {{QStringLiteral(".devcontainer.json"), R"({"build": {"dockerfile": "Dockerfile"}})"},
            {QStringLiteral("Dockerfile"),
                "FROM " + kSandbox.toUtf8() + "\nRUN echo started-" + QUuid::createUuid().toByteArray(QUuid::Id128)
                    + " && sleep 60\n"}});
    auto request = LaunchRequest::fromWorkspace(QStringLiteral("dc-cancel"), work, {});
    QVERIFY(request.ok());
    SandboxLauncher launcher(&m_net, m_lifecycle.get());
    QSignalSpy lines(&launcher, &SandboxLauncher::buildOutput);
    std::optional<Result<void, SandboxError>> launched;
    launcher.launch(
        request.value(), nullptr, [&launched](Result<void, SandboxError> r) { launched.emplace(std::move(r)); });
    QCOMPARE(launcher.state(), SandboxState::Building);
    QTRY_VERIFY_WITH_TIMEOUT(
        !lines.isEmpty() && lines.last().first().toString().startsWith(QLatin1String("started-")), 30000);
    QElapsedTimer took;
    took.start();
    auto removed = await<Result<void, SandboxError>>([&](auto done) { launcher.remove(done); });
    QVERIFY(removed && removed->ok());
    QTRY_VERIFY(launched.has_value());
    QCOMPARE(launched->error().code, SandboxError::Code::Cancelled);
    QCOMPARE(launcher.state(), SandboxState::Deleted);
    // The worker gave up within a second or two, not after the step's minute.
    QVERIFY(launched.has_value());
    QElapsedTimer destroyed;
    destroyed.start();
    {
        SandboxLauncher gone(&m_net, m_lifecycle.get());
        gone.launch(
            request.value(), nullptr, [](Result<void, SandboxError>) { QFAIL("a destroyed launcher answered"); });
        QTest::qWait(2000); // the build is under way
    }
    QVERIFY2(destroyed.elapsed() < 10000, "destroying the launcher waited for the build");
    QVERIFY2(took.elapsed() < 15000, "the build was not cancelled");
}

QTEST_GUILESS_MAIN(tst_DevcontainerBuild)
#include "tst_devcontainerbuild.moc"
