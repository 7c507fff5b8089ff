// devcontainer.json as the engine reads it: JSON with comments and trailing commas stripped by
// Jsonc (and nothing else changed), the fields it honours, what it refuses, where it looks in a
// worktree, and the launch request it makes (the default image when there is no file).
#include "sandbox/devcontainerconfig.h"
#include "sandbox/jsonc.h"
#include "sandbox/sandboxlauncher.h"

#include <QDir>
#include <QFile>
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
    void loadsFromTheWorktree();
    void refusesLinksOutOfTheWorktree();
    void launchRequestFromWorkspace();
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
    QTest::newRow("a build") << QByteArray("{\"build\": {\"dockerfile\": \"Dockerfile\"}}");
    QTest::newRow("a dockerFile") << QByteArray("{\"dockerFile\": \"Dockerfile\"}");
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
}

QTEST_GUILESS_MAIN(tst_Devcontainer)
#include "tst_devcontainer.moc"
