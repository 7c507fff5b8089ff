#include "core/paths.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace isolation;

class tst_Paths final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void xdgDefaults();
    void xdgVariables();
    void relativeXdgIgnored();
    void noRuntimeDir();
    void isolationHomeOverride();
    void ensureMakesPrivateDirectories();
    void missingHome();
};

namespace {
QProcessEnvironment env(std::initializer_list<std::pair<const char *, QString>> vars)
{
    QProcessEnvironment e;
    for (const auto &[k, v] : vars)
        e.insert(QString::fromLatin1(k), v);
    return e;
}
} // namespace

void tst_Paths::xdgDefaults()
{
    QTemporaryDir run;
    auto p = Paths::resolve(env({{"HOME", QStringLiteral("/home/ada")}, {"XDG_RUNTIME_DIR", run.path()}}));
    QVERIFY(p.ok());
    QCOMPARE(p.value().configDir(), QStringLiteral("/home/ada/.config/isolation"));
    QCOMPARE(p.value().dataDir(), QStringLiteral("/home/ada/.local/share/isolation"));
    QCOMPARE(p.value().cacheDir(), QStringLiteral("/home/ada/.cache/isolation"));
    QCOMPARE(p.value().stateDir(), QStringLiteral("/home/ada/.local/state/isolation"));
    QCOMPARE(p.value().socketPath(), run.path() + QStringLiteral("/isolation/engine.sock"));
    QVERIFY(!p.value().overridden());
}

void tst_Paths::xdgVariables()
{
    QTemporaryDir run;
    auto p = Paths::resolve(env({{"HOME", QStringLiteral("/home/ada")}, {"XDG_CONFIG_HOME", QStringLiteral("/cfg")},
        {"XDG_DATA_HOME", QStringLiteral("/data/")}, {"XDG_CACHE_HOME", QStringLiteral("/c")},
        {"XDG_STATE_HOME", QStringLiteral("/s")}, {"XDG_RUNTIME_DIR", run.path()}}));
    QVERIFY(p.ok());
    QCOMPARE(p.value().configDir(), QStringLiteral("/cfg/isolation"));
    QCOMPARE(p.value().dataDir(), QStringLiteral("/data/isolation"));
    QCOMPARE(p.value().cacheDir(), QStringLiteral("/c/isolation"));
    QCOMPARE(p.value().stateDir(), QStringLiteral("/s/isolation"));
    QCOMPARE(p.value().settingsFile(), QStringLiteral("/cfg/isolation/settings.ini"));
}

void tst_Paths::relativeXdgIgnored()
{
    auto p = Paths::resolve(env({{"HOME", QStringLiteral("/home/ada")}, {"XDG_DATA_HOME", QStringLiteral("rel/dir")}}));
    QVERIFY(p.ok());
    QCOMPARE(p.value().dataDir(), QStringLiteral("/home/ada/.local/share/isolation"));
}

void tst_Paths::noRuntimeDir()
{
    auto p = Paths::resolve(env({{"HOME", QStringLiteral("/home/ada")}}));
    QVERIFY(p.ok());
    QVERIFY(p.value().runtimeDir().startsWith(QStringLiteral("/tmp/isolation-runtime-")));
}

void tst_Paths::isolationHomeOverride()
{
    QTemporaryDir home;
    auto p = Paths::resolve(env({{"HOME", QStringLiteral("/home/ada")}, {"XDG_CONFIG_HOME", QStringLiteral("/cfg")},
        {"XDG_RUNTIME_DIR", QStringLiteral("/run/user/1000")}, {"ISOLATION_HOME", home.path()}}));
    QVERIFY(p.ok());
    const Paths &paths = p.value();
    QVERIFY(paths.overridden());
    for (const QString &dir : {paths.configDir(), paths.dataDir(), paths.cacheDir(), paths.stateDir(),
             paths.runtimeDir(), paths.socketPath(), paths.lockFile(), paths.logFile()})
        QVERIFY2(dir.startsWith(home.path() + QLatin1Char('/')), qPrintable(dir));
}

void tst_Paths::ensureMakesPrivateDirectories()
{
    QTemporaryDir tmp;
    const QString home = tmp.path() + QStringLiteral("/engine-a");
    auto p = Paths::resolve(env({{"ISOLATION_HOME", home}}));
    QVERIFY(p.ok());
    QVERIFY(p.value().ensure().ok());
    for (const QString &dir : {home, p.value().configDir(), p.value().dataDir(), p.value().runtimeDir()}) {
        struct stat st
        {
        };
        QCOMPARE(::stat(QFile::encodeName(dir).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
    }
}

void tst_Paths::missingHome()
{
    auto p = Paths::resolve(env({}));
    QVERIFY(!p.ok());
    QCOMPARE(p.error().code, Error::Code::InvalidInput);
    QVERIFY(p.error().message.contains(QStringLiteral("ISOLATION_HOME")));
}

QTEST_GUILESS_MAIN(tst_Paths)
#include "tst_paths.moc"
