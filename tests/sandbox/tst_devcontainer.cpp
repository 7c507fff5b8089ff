// devcontainer.json as the engine reads it: JSON with comments and trailing commas stripped by
// Jsonc (and nothing else changed), the fields it honours, what it refuses (every unsupported key by
// name), where it looks in a worktree, and the launch request it makes (the default image when
// there is no file). What a build is made of: paths kept inside the worktree, the context's tar
// (links kept as links, .dockerignore), local features' options and their Dockerfile.
#include "sandbox/devcontainerbuild.h"
#include "sandbox/devcontainerconfig.h"
#include "sandbox/jsonc.h"
#include "sandbox/sandboxlauncher.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;

namespace {

bool write(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class tst_Devcontainer final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void stripsComments_data();
    void stripsComments();
    void stripRefuses_data();
    void stripRefuses();
    void parsesTheFields();
    void postCreateForms_data();
    void postCreateForms();
    void arrayFormRunsWithoutAShell();
    void refuses_data();
    void refuses();
    void refusesNamingTheKey_data();
    void refusesNamingTheKey();
    void loadsFromTheWorktree();
    void refusesLinksOutOfTheWorktree();
    void launchRequestFromWorkspace();
    void parsesABuild();
    void planStaysInTheWorktree();
    void planReadsLocalFeatures();
    void contextTarKeepsLinksAndIgnores();
    void dockerignoreRules_data();
    void dockerignoreRules();
    void featuresDockerfile();
};

void tst_Devcontainer::stripsComments_data()
{
    QTest::addColumn<QByteArray>("jsonc");
    QTest::addColumn<QByteArray>("json"); // what QJsonDocument must read it as (compact)
    QTest::newRow("plain JSON untouched") << QByteArray("{\"a\": [1, 2]}") << QByteArray("{\"a\":[1,2]}");
    QTest::newRow("line comments") << QByteArray("// head\n{\"a\": 1 // one\n}") << QByteArray("{\"a\":1}");
    QTest::newRow("block comments") << QByteArray("{/* x */\"a\": /* y\n z */ 1}") << QByteArray("{\"a\":1}");
    QTest::newRow("comment markers inside strings") << QByteArray("{\"url\": \"http://x/*y*/\", \"b\": \"//\"}")
                                                    << QByteArray("{\"b\":\"//\",\"url\":\"http://x/*y*/\"}");
    QTest::newRow("escaped quotes in strings") << QByteArray("{\"a\": \"say \\\"//hi\\\"\", // c\n \"b\": 2}")
                                               << QByteArray("{\"a\":\"say \\\"//hi\\\"\",\"b\":2}");
    QTest::newRow("trailing commas") << QByteArray("{\"a\": [1, 2,], \"b\": {\"c\": 3,},}")
                                     << QByteArray("{\"a\":[1,2],\"b\":{\"c\":3}}");
    QTest::newRow("trailing comma before a comment")
        << QByteArray("{\"a\": 1, // last\n /* really */ }") << QByteArray("{\"a\":1}");
    QTest::newRow("a comma in a string stays") << QByteArray("{\"a\": \",}\"}") << QByteArray("{\"a\":\",}\"}");
    QTest::newRow("a BOM") << QByteArray("\xEF\xBB\xBF{\"a\": 1}") << QByteArray("{\"a\":1}");
}

void tst_Devcontainer::stripsComments()
{
    QFETCH(QByteArray, jsonc);
    QFETCH(QByteArray, json);
    auto stripped = Jsonc::strip(jsonc);
    QVERIFY(stripped.ok());
    // Offsets stay where they were (line breaks kept, comments blanked), apart from a BOM.
    QCOMPARE(stripped.value().count('\n'), jsonc.count('\n'));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(stripped.value(), &error);
    QVERIFY2(
        error.error == QJsonParseError::NoError, qPrintable(error.errorString() + QLatin1Char(' ') + stripped.value()));
    QCOMPARE(doc.toJson(QJsonDocument::Compact), json);
}

void tst_Devcontainer::stripRefuses_data()
{
    QTest::addColumn<QByteArray>("jsonc");
    QTest::newRow("unterminated comment") << QByteArray("{\"a\": 1 /* open");
    QTest::newRow("unterminated string") << QByteArray("{\"a\": \"open");
    QTest::newRow("a backslash at the end") << QByteArray("{\"a\": \"x\\");
}

void tst_Devcontainer::stripRefuses()
{
    QFETCH(QByteArray, jsonc);
    auto stripped = Jsonc::strip(jsonc);
    QVERIFY(!stripped.ok());
    QCOMPARE(stripped.error().code, SandboxError::Code::Refused);
}

void tst_Devcontainer::parsesTheFields()
{
    const QByteArray file = R"({
        // The image every session of this workspace runs.
        "name": "tools",
        "image": "registry.example/tools:1.2", /* pinned */
        "containerEnv": {
            "GREETING": "hello",
            "EMPTY": "",
        },
        "postCreateCommand": "make setup",
        "remoteUser": "vscode",
        "customizations": {"vscode": {"extensions": ["a.b"]}},
    })";
    auto config = DevcontainerConfig::parse(file);
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    QCOMPARE(config.value().image, QStringLiteral("registry.example/tools:1.2"));
    QCOMPARE(config.value().containerEnv.size(), 2);
    QCOMPARE(config.value().containerEnv.value(QStringLiteral("GREETING")), QStringLiteral("hello"));
    QVERIFY(config.value().containerEnv.contains(QStringLiteral("EMPTY")));
    QCOMPARE(config.value().postCreateCommands, QStringList {QStringLiteral("make setup")});
    QCOMPARE(config.value().remoteUser, QStringLiteral("vscode"));

    auto bare = DevcontainerConfig::parse("{}");
    QVERIFY(bare.ok());
    QVERIFY(bare.value().image.isEmpty());
    QVERIFY(bare.value().postCreateCommands.isEmpty());
}

void tst_Devcontainer::postCreateForms_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QStringList>("commands");
    QTest::newRow("a string") << QByteArray("\"npm ci && npm test\"")
                              << QStringList {QStringLiteral("npm ci && npm test")};
    QTest::newRow("an array") << QByteArray("[\"npm\", \"ci\"]") << QStringList {QStringLiteral("exec 'npm' 'ci'")};
    QTest::newRow("an object, in key order")
        << QByteArray("{\"b\": \"second\", \"a\": [\"first\", \"it's\"]}")
        << QStringList {QStringLiteral("exec 'first' 'it'\\''s'"), QStringLiteral("second")};
    QTest::newRow("an empty string") << QByteArray("\"  \"") << QStringList {};
    QTest::newRow("null") << QByteArray("null") << QStringList {};
}

void tst_Devcontainer::postCreateForms()
{
    QFETCH(QByteArray, value);
    QFETCH(QStringList, commands);
    auto config = DevcontainerConfig::parse(QByteArray("{\"postCreateCommand\": " + value + "}"));
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    QCOMPARE(config.value().postCreateCommands, commands);
}

void tst_Devcontainer::arrayFormRunsWithoutAShell()
{
    // The array form passes each element as one argument, whatever it holds: sh gets it verbatim.
    const QStringList argv {QStringLiteral("printf"), QStringLiteral("[%s]"), QStringLiteral("a b"),
        QStringLiteral("$HOME"), QStringLiteral("it's"), QStringLiteral("`id`;|&")};
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), DevcontainerConfig::quoteArgv(argv)});
    QVERIFY(sh.waitForFinished());
    QCOMPARE(sh.readAllStandardOutput(), QByteArray("[a b][$HOME][it's][`id`;|&]"));
}

void tst_Devcontainer::refuses_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::newRow("not an object") << QByteArray("[]");
    QTest::newRow("bad JSON") << QByteArray("{\"image\": }");
    QTest::newRow("compose") << QByteArray("{\"dockerComposeFile\": \"compose.yml\"}");
    QTest::newRow("an image that is not a reference") << QByteArray("{\"image\": \"ubuntu; rm -rf /\"}");
    QTest::newRow("an image that is a number") << QByteArray("{\"image\": 12}");
    QTest::newRow("containerEnv an array") << QByteArray("{\"containerEnv\": [\"A=b\"]}");
    QTest::newRow("containerEnv with a bad name") << QByteArray("{\"containerEnv\": {\"A B\": \"c\"}}");
    QTest::newRow("containerEnv with a number") << QByteArray("{\"containerEnv\": {\"A\": 1}}");
    QTest::newRow("postCreateCommand a number") << QByteArray("{\"postCreateCommand\": 1}");
    QTest::newRow("postCreateCommand an array of numbers") << QByteArray("{\"postCreateCommand\": [1]}");
    QTest::newRow("postCreateCommand an empty array") << QByteArray("{\"postCreateCommand\": []}");
    QTest::newRow("too large") << QByteArray("{\"name\": \"" + QByteArray(DevcontainerConfig::kMaxBytes, 'x') + "\"}");
}

void tst_Devcontainer::refuses()
{
    QFETCH(QByteArray, file);
    auto config = DevcontainerConfig::parse(file);
    QVERIFY(!config.ok());
    QCOMPARE(config.error().code, SandboxError::Code::Refused);
    QVERIFY(!config.error().message.isEmpty());
}

void tst_Devcontainer::refusesNamingTheKey_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("named"); // what the error must name
    for (const char *key : {"mounts", "runArgs", "privileged", "capAdd", "securityOpt", "init", "workspaceMount",
             "workspaceFolder", "initializeCommand", "onCreateCommand", "postStartCommand", "appPort", "containerUser",
             "remoteEnv", "dockerComposeFile", "somethingNew"})
        QTest::newRow(key) << QByteArray("{\"image\": \"a:1\", \"") + key + "\": []}" << QString::fromLatin1(key);
    QTest::newRow("a registry feature") << QByteArray("{\"features\": {\"ghcr.io/devcontainers/features/node:1\": {}}}")
                                        << QStringLiteral("ghcr.io/devcontainers/features/node:1");
    QTest::newRow("a feature out of the folder")
        << QByteArray("{\"features\": {\"../x\": {}}}") << QStringLiteral("../x");
    QTest::newRow("build with an unknown key")
        << QByteArray("{\"build\": {\"dockerfile\": \"D\", \"cacheFrom\": \"x\"}}") << QStringLiteral("cacheFrom");
    QTest::newRow("an absolute Dockerfile")
        << QByteArray("{\"build\": {\"dockerfile\": \"/etc/D\"}}") << QStringLiteral("dockerfile");
    QTest::newRow("a build without a Dockerfile")
        << QByteArray("{\"build\": {\"context\": \".\"}}") << QStringLiteral("dockerfile");
    QTest::newRow("an arg that is a number")
        << QByteArray("{\"build\": {\"dockerfile\": \"D\", \"args\": {\"A\": 1}}}") << QStringLiteral("build.args.A");
    QTest::newRow("a bad target") << QByteArray("{\"build\": {\"dockerfile\": \"D\", \"target\": \"a b\"}}")
                                  << QStringLiteral("target");
    QTest::newRow("image and build") << QByteArray("{\"image\": \"a:1\", \"build\": {\"dockerfile\": \"D\"}}")
                                     << QStringLiteral("not both");
    QTest::newRow("context alone") << QByteArray("{\"context\": \"..\"}") << QStringLiteral("context");
    QTest::newRow("remoteUser a number") << QByteArray("{\"remoteUser\": 0}") << QStringLiteral("remoteUser");
}

void tst_Devcontainer::refusesNamingTheKey()
{
    QFETCH(QByteArray, file);
    QFETCH(QString, named);
    auto config = DevcontainerConfig::parse(file);
    QVERIFY(!config.ok());
    QCOMPARE(config.error().code, SandboxError::Code::Refused);
    QVERIFY2(config.error().message.contains(named), qPrintable(config.error().message));
}

void tst_Devcontainer::loadsFromTheWorktree()
{
    QTemporaryDir dir;
    const QString work = dir.path();
    auto none = DevcontainerConfig::load(work);
    QVERIFY(none.ok());
    QVERIFY(!none.value().has_value());

    QVERIFY(write(work + QStringLiteral("/.devcontainer.json"), "{\"image\": \"second:1\"}"));
    auto second = DevcontainerConfig::load(work);
    QVERIFY(second.ok() && second.value());
    QCOMPARE(second.value()->image, QStringLiteral("second:1"));

    // .devcontainer/devcontainer.json comes first.
    QVERIFY(write(work + QStringLiteral("/.devcontainer/devcontainer.json"), "{\"image\": \"first:1\", // c\n}"));
    auto first = DevcontainerConfig::load(work);
    QVERIFY(first.ok() && first.value());
    QCOMPARE(first.value()->image, QStringLiteral("first:1"));
    QCOMPARE(first.value()->path, QDir(work).canonicalPath() + QStringLiteral("/.devcontainer/devcontainer.json"));

    QVERIFY(write(work + QStringLiteral("/.devcontainer/devcontainer.json"), "{\"image\": "));
    auto broken = DevcontainerConfig::load(work);
    QVERIFY(!broken.ok());
    QVERIFY2(broken.error().message.contains(QStringLiteral("devcontainer.json")), qPrintable(broken.error().message));
}

void tst_Devcontainer::refusesLinksOutOfTheWorktree()
{
    QTemporaryDir dir;
    const QString work = dir.filePath(QStringLiteral("work"));
    const QString outside = dir.filePath(QStringLiteral("outside"));
    QVERIFY(write(outside + QStringLiteral("/devcontainer.json"), "{\"image\": \"outside:1\"}"));
    QVERIFY(QDir().mkpath(work));
    // The file a link, or the directory a link: neither is read.
    QVERIFY(QFile::link(outside + QStringLiteral("/devcontainer.json"), work + QStringLiteral("/.devcontainer.json")));
    auto linked = DevcontainerConfig::load(work);
    QVERIFY(!linked.ok());
    QVERIFY(QFile::remove(work + QStringLiteral("/.devcontainer.json")));
    QVERIFY(QFile::link(outside, work + QStringLiteral("/.devcontainer")));
    auto dirLinked = DevcontainerConfig::load(work);
    QVERIFY(!dirLinked.ok());
    QCOMPARE(dirLinked.error().code, SandboxError::Code::Refused);
}

void tst_Devcontainer::launchRequestFromWorkspace()
{
    QTemporaryDir dir;
    auto plain = LaunchRequest::fromWorkspace(QStringLiteral("s1"), dir.path(), QStringLiteral("debian:12"));
    QVERIFY(plain.ok());
    QCOMPARE(plain.value().image, QStringLiteral("debian:12"));
    QVERIFY(plain.value().env.isEmpty());
    QVERIFY(plain.value().postCreateCommands.isEmpty());

    QVERIFY(write(dir.filePath(QStringLiteral(".devcontainer/devcontainer.json")),
        "{\"containerEnv\": {\"A\": \"b\"}, \"postCreateCommand\": \"true\"}"));
    auto noImage = LaunchRequest::fromWorkspace(QStringLiteral("s1"), dir.path(), QStringLiteral("debian:12"));
    QVERIFY(noImage.ok());
    QCOMPARE(noImage.value().image, QStringLiteral("debian:12")); // no image in the file: the default
    QCOMPARE(noImage.value().env.value(QStringLiteral("A")), QStringLiteral("b"));
    QCOMPARE(noImage.value().postCreateCommands, QStringList {QStringLiteral("true")});

    QVERIFY(write(dir.filePath(QStringLiteral(".devcontainer/devcontainer.json")), "{\"image\": \"tools:2\"}"));
    auto chosen = LaunchRequest::fromWorkspace(QStringLiteral("s1"), dir.path(), QStringLiteral("debian:12"));
    QVERIFY(chosen.ok());
    QCOMPARE(chosen.value().image, QStringLiteral("tools:2"));

    auto none = LaunchRequest::fromWorkspace(QStringLiteral("s1"), dir.filePath(QStringLiteral("missing")), {});
    QVERIFY(!none.ok());

    // A build: no image until it is built (its tag then), whatever the default.
    QVERIFY(write(dir.filePath(QStringLiteral(".devcontainer/Dockerfile")), "FROM debian:12\n"));
    QVERIFY(write(dir.filePath(QStringLiteral(".devcontainer/devcontainer.json")),
        "{\"build\": {\"dockerfile\": \"Dockerfile\"}}"));
    auto built = LaunchRequest::fromWorkspace(QStringLiteral("s1"), dir.path(), QStringLiteral("debian:12"));
    QVERIFY(built.ok());
    QVERIFY(built.value().build);
    QVERIFY(built.value().image.isEmpty());
}

void tst_Devcontainer::parsesABuild()
{
    auto config = DevcontainerConfig::parse(R"({
        "name": "built", "$schema": "x", "forwardPorts": [3000],
        "build": {"dockerfile": "Dockerfile", "context": "..", "args": {"GREETING": "hi"}, "target": "dev"},
        "features": {"./tools": {"level": "3", "fast": true}, "./plain": {}},
        "remoteUser": "dev",
    })");
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    QVERIFY(config.value().build);
    QCOMPARE(config.value().build->dockerfile, QStringLiteral("Dockerfile"));
    QCOMPARE(config.value().build->context, QStringLiteral(".."));
    QCOMPARE(config.value().build->args.value(QStringLiteral("GREETING")), QStringLiteral("hi"));
    QCOMPARE(config.value().build->target, QStringLiteral("dev"));
    QCOMPARE(config.value().features.size(), 2);
    QCOMPARE(config.value().features.at(0).id, QStringLiteral("./plain")); // key order
    QCOMPARE(config.value().features.at(1).options.value(QStringLiteral("fast")).toBool(), true);

    // The legacy top-level form; the context defaults to the file's folder.
    auto legacy = DevcontainerConfig::parse(R"({"dockerFile": "D", "context": "."})");
    QVERIFY(legacy.ok() && legacy.value().build);
    QCOMPARE(legacy.value().build->dockerfile, QStringLiteral("D"));
    auto noContext = DevcontainerConfig::parse(R"({"build": {"dockerfile": "D"}})");
    QVERIFY(noContext.ok() && noContext.value().build);
    QCOMPARE(noContext.value().build->context, QStringLiteral("."));
}

void tst_Devcontainer::planStaysInTheWorktree()
{
    QTemporaryDir dir;
    const QString work = dir.filePath(QStringLiteral("work"));
    const QString outside = dir.filePath(QStringLiteral("outside"));
    QVERIFY(write(outside + QStringLiteral("/Dockerfile"), "FROM x\n"));
    QVERIFY(write(work + QStringLiteral("/Dockerfile"), "FROM x\n"));
    const QString json = work + QStringLiteral("/.devcontainer/devcontainer.json");
    auto plan = [&](const QByteArray &file) -> Result<std::optional<DevcontainerBuild>, SandboxError> {
        if (!write(json, file))
            return SandboxError::failed(QStringLiteral("cannot write"));
        auto config = DevcontainerConfig::load(work);
        if (!config)
            return config.error();
        return DevcontainerBuild::plan(config.value().value(), work, QStringLiteral("base:1"));
    };
    // Relative to the file's folder; the context defaults to it.
    auto ok = plan(R"({"build": {"dockerfile": "../Dockerfile", "context": ".."}})");
    QVERIFY2(ok.ok() && ok.value(), ok.ok() ? "no build" : qPrintable(ok.error().message));
    const QString root = QDir(work).canonicalPath();
    QCOMPARE(ok.value()->dockerfile, root + QStringLiteral("/Dockerfile"));
    QCOMPARE(ok.value()->context, root);
    QVERIFY(write(work + QStringLiteral("/.devcontainer/Dockerfile"), "FROM x\n"));
    auto here = plan(R"({"build": {"dockerfile": "Dockerfile"}})");
    QVERIFY(here.ok() && here.value());
    QCOMPARE(here.value()->context, root + QStringLiteral("/.devcontainer"));

    // Links leading out are refused, for the Dockerfile and the context alike.
    QVERIFY(QFile::link(outside + QStringLiteral("/Dockerfile"), work + QStringLiteral("/.devcontainer/Out")));
    QVERIFY(QFile::link(outside, work + QStringLiteral("/.devcontainer/outdir")));
    auto linked = plan(R"({"build": {"dockerfile": "Out"}})");
    QVERIFY(!linked.ok());
    QVERIFY2(linked.error().message.contains(QStringLiteral("Out")), qPrintable(linked.error().message));
    auto linkedContext = plan(R"({"build": {"dockerfile": "Dockerfile", "context": "outdir"}})");
    QVERIFY(!linkedContext.ok());
    QVERIFY(linkedContext.error().message.contains(QStringLiteral("outdir")));
    auto up = plan(R"({"build": {"dockerfile": "../../outside/Dockerfile"}})");
    QVERIFY(!up.ok());
    QVERIFY2(up.error().message.contains(QStringLiteral("../../outside/Dockerfile")), qPrintable(up.error().message));
    auto upContext = plan(R"({"build": {"dockerfile": "Dockerfile", "context": "../.."}})");
    QVERIFY(!upContext.ok());
    QVERIFY(upContext.error().message.contains(QStringLiteral("context")));
    auto missing = plan(R"({"build": {"dockerfile": "Nope"}})");
    QVERIFY(!missing.ok());
    // Nothing to build: an image alone.
    auto image = plan(R"({"image": "a:1"})");
    QVERIFY(image.ok() && !image.value());
}

void tst_Devcontainer::planReadsLocalFeatures()
{
    QTemporaryDir dir;
    const QString dc = dir.filePath(QStringLiteral(".devcontainer"));
    QVERIFY(write(dc + QStringLiteral("/devcontainer.json"),
        R"({"image": "a:1", "features": {"./tools": {"level": "3", "with-docs": false}}, "remoteUser": "dev"})"));
    QVERIFY(write(dc + QStringLiteral("/tools/install.sh"), "#!/bin/sh\necho $LEVEL\n"));
    QVERIFY(write(dc + QStringLiteral("/tools/devcontainer-feature.json"), R"({
        "id": "tools", "version": "1.0.0", // comments allowed
        "options": {"level": {"type": "string", "default": "1"}, "flavour": {"type": "string", "default": "plain"},
                    "with-docs": {"type": "boolean", "default": true}},
        "containerEnv": {"TOOLS_HOME": "/opt/tools"}
    })"));
    auto config = DevcontainerConfig::load(dir.path());
    QVERIFY(config.ok() && config.value());
    auto plan = DevcontainerBuild::plan(config.value().value(), dir.path(), QStringLiteral("base:1"));
    QVERIFY2(plan.ok() && plan.value(), plan.ok() ? "no build" : qPrintable(plan.error().message));
    const DevcontainerBuild &b = *plan.value();
    QCOMPARE(b.baseImage, QStringLiteral("a:1"));
    QVERIFY(b.dockerfile.isEmpty());
    QCOMPARE(b.features.size(), 1);
    const QMap<QString, QString> expected {{QStringLiteral("LEVEL"), QStringLiteral("3")},
        {QStringLiteral("FLAVOUR"), QStringLiteral("plain")}, {QStringLiteral("WITH_DOCS"), QStringLiteral("false")}};
    QCOMPARE(b.features.at(0).options, expected);
    QCOMPARE(b.features.at(0).containerEnv.value(QStringLiteral("TOOLS_HOME")), QStringLiteral("/opt/tools"));

    // What a feature may not ask for, and a feature without its install.sh.
    QVERIFY(write(dc + QStringLiteral("/tools/devcontainer-feature.json"), R"({"id": "tools", "privileged": true})"));
    auto privileged = DevcontainerBuild::plan(config.value().value(), dir.path(), {});
    QVERIFY(!privileged.ok());
    QVERIFY2(privileged.error().message.contains(QStringLiteral("privileged")), qPrintable(privileged.error().message));
    QVERIFY(write(dc + QStringLiteral("/tools/devcontainer-feature.json"), R"({"id": "tools"})"));
    QVERIFY(QFile::remove(dc + QStringLiteral("/tools/install.sh")));
    auto noInstall = DevcontainerBuild::plan(config.value().value(), dir.path(), {});
    QVERIFY(!noInstall.ok());
    QVERIFY(noInstall.error().message.contains(QStringLiteral("install.sh")));
}

namespace {

// `tar -tvf` of the bytes: one line per entry.
QStringList listTar(const QByteArray &tar)
{
    QProcess p;
    p.start(QStringLiteral("tar"), {QStringLiteral("-tvf"), QStringLiteral("-")});
    p.write(tar);
    p.closeWriteChannel();
    p.waitForFinished();
    return QString::fromUtf8(p.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

void tst_Devcontainer::contextTarKeepsLinksAndIgnores()
{
    QTemporaryDir dir;
    const QString ctx = dir.filePath(QStringLiteral("ctx"));
    QVERIFY(write(dir.filePath(QStringLiteral("secret.txt")), "outside the worktree\n"));
    QVERIFY(write(ctx + QStringLiteral("/src/main.c"), "int main;\n"));
    QVERIFY(write(ctx + QStringLiteral("/build/big.o"), "object\n"));
    QVERIFY(write(ctx + QStringLiteral("/logs/a.log"), "log\n"));
    QVERIFY(write(ctx + QStringLiteral("/logs/keep.log"), "kept\n"));
    QVERIFY(write(ctx + QStringLiteral("/.dockerignore"), "# comment\nbuild\n**/*.log\n!logs/keep.log\n"));
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("secret.txt")), ctx + QStringLiteral("/secret-link")));
    QVERIFY(QFile::link(dir.path(), ctx + QStringLiteral("/up")));
    auto tar = DevcontainerBuild::tarOf(ctx, {{QStringLiteral("extra/Dockerfile"), "FROM x\n"}}, true);
    QVERIFY2(tar.ok(), tar.ok() ? "" : qPrintable(tar.error().message));
    QVERIFY(!tar.value().contains("outside the worktree")); // a link's target is never read
    const QString listing = listTar(tar.value()).join(QLatin1Char('\n'));
    QVERIFY2(listing.contains(QStringLiteral("src/main.c")), qPrintable(listing));
    QVERIFY(listing.contains(QStringLiteral("secret-link -> ")));
    QVERIFY(listing.contains(QStringLiteral("up -> ")));
    QVERIFY(!listing.contains(QStringLiteral("up/"))); // not walked into
    QVERIFY(!listing.contains(QStringLiteral("big.o")));
    QVERIFY(!listing.contains(QStringLiteral("a.log")));
    QVERIFY(listing.contains(QStringLiteral("logs/keep.log")));
    QVERIFY(listing.contains(QStringLiteral("extra/Dockerfile")));
    // The same files give the same bytes: the cache key.
    auto again = DevcontainerBuild::tarOf(ctx, {{QStringLiteral("extra/Dockerfile"), "FROM x\n"}}, true);
    QVERIFY(again.ok());
    QCOMPARE(again.value(), tar.value());
    QVERIFY(write(ctx + QStringLiteral("/src/main.c"), "int main2;\n"));
    QVERIFY(DevcontainerBuild::tarOf(ctx, {}, true).value() != tar.value());
}

void tst_Devcontainer::dockerignoreRules_data()
{
    QTest::addColumn<QStringList>("patterns");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("ignored");
    const QStringList p {QStringLiteral("node_modules"), QStringLiteral("*.tmp"), QStringLiteral("docs/**/*.pdf"),
        QStringLiteral("/secrets"), QStringLiteral("cache/*"), QStringLiteral("!cache/keep")};
    QTest::newRow("a folder and its files") << p << QStringLiteral("node_modules/a/b.js") << true;
    QTest::newRow("a name elsewhere is not the folder") << p << QStringLiteral("src/node_modules") << false;
    QTest::newRow("* within one element") << p << QStringLiteral("a.tmp") << true;
    QTest::newRow("* does not cross /") << p << QStringLiteral("src/a.tmp") << false;
    QTest::newRow("** crosses folders") << p << QStringLiteral("docs/a/b/c.pdf") << true;
    QTest::newRow("** matches none") << p << QStringLiteral("docs/c.pdf") << true;
    QTest::newRow("leading slash") << p << QStringLiteral("secrets/key") << true;
    QTest::newRow("re-included") << p << QStringLiteral("cache/keep") << false;
    QTest::newRow("others of the folder") << p << QStringLiteral("cache/other") << true;
    QTest::newRow("nothing matches") << p << QStringLiteral("src/main.c") << false;
}

void tst_Devcontainer::dockerignoreRules()
{
    QFETCH(QStringList, patterns);
    QFETCH(QString, path);
    QFETCH(bool, ignored);
    QCOMPARE(DevcontainerBuild::isIgnored(patterns, path), ignored);
}

void tst_Devcontainer::featuresDockerfile()
{
    DevcontainerBuild b;
    b.remoteUser = QStringLiteral("dev");
    b.features.append({QStringLiteral("./tools"), QStringLiteral("/w/.devcontainer/tools"),
        {{QStringLiteral("LEVEL"), QStringLiteral("it's \"3\"\n$x")}},
        {{QStringLiteral("TOOLS_HOME"), QStringLiteral("/opt/$t")}}});
    const QString file = QString::fromUtf8(b.featuresDockerfile(QStringLiteral("sha256:abc"), QStringLiteral("app")));
    const QStringList lines = file.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.first(), QStringLiteral("FROM sha256:abc"));
    QCOMPARE(lines.at(1), QStringLiteral("USER root")); // features install as root
    QCOMPARE(lines.last(), QStringLiteral("USER app")); // and the image's user is back afterwards
    QVERIFY(lines.contains(QStringLiteral("COPY features/0/ /tmp/isolation-features/0/")));
    QVERIFY(lines.contains(QStringLiteral("ENV TOOLS_HOME=\"/opt/\\$t\"")));
    // The RUN line is a JSON array: what sh gets is the script, the option quoted for it.
    QString run;
    for (const QString &l : lines) {
        if (l.startsWith(QLatin1String("RUN [\"/bin/sh\"")))
            run = l.mid(4);
    }
    const QJsonArray argv = QJsonDocument::fromJson(run.toUtf8()).array();
    QCOMPARE(argv.size(), 3);
    const QString script = argv.at(2).toString();
    QVERIFY2(script.contains(QStringLiteral("LEVEL='it'\\''s \"3\"\n$x'")), qPrintable(script));
    QVERIFY(script.contains(QStringLiteral("_REMOTE_USER='dev'")));
    QVERIFY(script.contains(QStringLiteral("_CONTAINER_USER='app'")));
    // sh reads the option back as it was.
    QProcess sh;
    QTemporaryDir dir;
    QVERIFY(
        write(dir.filePath(QStringLiteral("install.sh")), "#!/bin/sh\nprintf '%s|%s' \"$LEVEL\" \"$_REMOTE_USER\"\n"));
    QString local = script;
    local.replace(QStringLiteral("/tmp/isolation-features/0"), dir.path());
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), local});
    QVERIFY(sh.waitForFinished());
    QCOMPARE(sh.readAllStandardOutput(), QByteArray("it's \"3\"\n$x|dev"));
}

QTEST_GUILESS_MAIN(tst_Devcontainer)
#include "tst_devcontainer.moc"
