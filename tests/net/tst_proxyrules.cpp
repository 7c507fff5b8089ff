// ProxyRules: which proxy the environment gives a hub URL (HTTPS_PROXY / HTTP_PROXY / NO_PROXY,
// upper case before lower case), loopback always direct, and what it refuses to guess. The
// proxied path itself, through a real tinyproxy, is in tst_websockettls.
#include "net/proxyrules.h"

#include <QTest>

using namespace isolation;

class tst_ProxyRules final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void proxyFor_data();
    void proxyFor();
    void credentialsAreKeptButNotShown();
    void unusableSettingsAreReported();
};

void tst_ProxyRules::proxyFor_data()
{
    QTest::addColumn<QStringList>("environment"); // NAME=value
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("expected"); // host:port of the proxy, or "direct"

    const QString https = QStringLiteral("HTTPS_PROXY=http://proxy.corp:3128");
    QTest::newRow("nothing set") << QStringList() << "https://cloud.example"
                                 << "direct";
    QTest::newRow("https") << QStringList {https} << "https://cloud.example"
                           << "proxy.corp:3128";
    QTest::newRow("wss like https") << QStringList {https} << "wss://cloud.example/v1/tunnel"
                                    << "proxy.corp:3128";
    QTest::newRow("http not by HTTPS_PROXY") << QStringList {https} << "http://cloud.example"
                                             << "direct";
    QTest::newRow("http by HTTP_PROXY") << QStringList {QStringLiteral("HTTP_PROXY=http://p:8080")}
                                        << "ws://cloud.example"
                                        << "p:8080";
    QTest::newRow("lower case") << QStringList {QStringLiteral("https_proxy=http://low:1")} << "https://a.example"
                                << "low:1";
    QTest::newRow("upper case first") << QStringList {QStringLiteral("HTTPS_PROXY=http://up:1"),
        QStringLiteral("https_proxy=http://low:1")}
                                      << "https://a.example"
                                      << "up:1";
    QTest::newRow("no scheme is http, default port 80")
        << QStringList {QStringLiteral("HTTPS_PROXY=proxy.corp")} << "https://a.example"
        << "proxy.corp:80";
    QTest::newRow("localhost direct") << QStringList {https} << "https://localhost:8470"
                                      << "direct";
    QTest::newRow("127.0.0.0/8 direct") << QStringList {https} << "https://127.1.2.3"
                                        << "direct";
    QTest::newRow("::1 direct") << QStringList {https} << "https://[::1]:8470"
                                << "direct";
    QTest::newRow("a name with localhost in it is not loopback") << QStringList {https} << "https://localhost.example"
                                                                 << "proxy.corp:3128";
    const QString no = QStringLiteral("NO_PROXY=");
    QTest::newRow("NO_PROXY *") << QStringList {https, no + "*"} << "https://cloud.example"
                                << "direct";
    QTest::newRow("NO_PROXY domain") << QStringList {https, no + "example.com"} << "https://example.com"
                                     << "direct";
    QTest::newRow("NO_PROXY domain: below") << QStringList {https, no + "example.com"} << "https://hub.example.com"
                                            << "direct";
    QTest::newRow("NO_PROXY domain: not a suffix of a word")
        << QStringList {https, no + "example.com"} << "https://badexample.com"
        << "proxy.corp:3128";
    QTest::newRow("NO_PROXY .domain: itself proxied")
        << QStringList {https, no + ".example.com"} << "https://example.com"
        << "proxy.corp:3128";
    QTest::newRow("NO_PROXY .domain: below direct")
        << QStringList {https, no + ".example.com"} << "https://hub.example.com"
        << "direct";
    QTest::newRow("NO_PROXY *.domain like .domain")
        << QStringList {https, no + "*.example.com"} << "https://hub.example.com"
        << "direct";
    QTest::newRow("NO_PROXY *.domain: itself proxied")
        << QStringList {https, no + "*.example.com"} << "https://example.com"
        << "proxy.corp:3128";
    QTest::newRow("NO_PROXY case") << QStringList {https, no + "Example.COM"} << "https://HUB.example.com"
                                   << "direct";
    QTest::newRow("NO_PROXY list with spaces") << QStringList {https, no + "a.test, b.test  c.test"} << "https://c.test"
                                               << "direct";
    QTest::newRow("NO_PROXY address") << QStringList {https, no + "10.1.2.3"} << "https://10.1.2.3"
                                      << "direct";
    QTest::newRow("NO_PROXY address: another") << QStringList {https, no + "10.1.2.3"} << "https://10.1.2.4"
                                               << "proxy.corp:3128";
    QTest::newRow("NO_PROXY range") << QStringList {https, no + "10.0.0.0/8"} << "https://10.200.0.1"
                                    << "direct";
    QTest::newRow("NO_PROXY range: outside") << QStringList {https, no + "10.0.0.0/8"} << "https://11.0.0.1"
                                             << "proxy.corp:3128";
    QTest::newRow("NO_PROXY v6 range") << QStringList {https, no + "fd00::/8"} << "https://[fd00::5]"
                                       << "direct";
    QTest::newRow("NO_PROXY port matches") << QStringList {https, no + "hub.test:8443"} << "https://hub.test:8443"
                                           << "direct";
    QTest::newRow("NO_PROXY port differs") << QStringList {https, no + "hub.test:8443"} << "https://hub.test"
                                           << "proxy.corp:3128";
    QTest::newRow("no_proxy lower case") << QStringList {https, QStringLiteral("no_proxy=hub.test")}
                                         << "https://hub.test"
                                         << "direct";
}

void tst_ProxyRules::proxyFor()
{
    QFETCH(QStringList, environment);
    QFETCH(QString, url);
    QFETCH(QString, expected);
    QProcessEnvironment env;
    for (const QString &entry : environment)
        env.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
    const ProxyRules rules = ProxyRules::fromEnvironment(env);
    QCOMPARE(rules.problems(), QStringList());
    const QNetworkProxy proxy = rules.proxyFor(QUrl(url));
    const QString got = proxy.type() == QNetworkProxy::NoProxy
        ? QStringLiteral("direct")
        : QStringLiteral("%1:%2").arg(proxy.hostName()).arg(proxy.port());
    QCOMPARE(got, expected);
    if (proxy.type() != QNetworkProxy::NoProxy)
        QCOMPARE(proxy.type(), QNetworkProxy::HttpProxy);
}

void tst_ProxyRules::credentialsAreKeptButNotShown()
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://al%40ice:p%3Ass@proxy.corp:3128"));
    const ProxyRules rules = ProxyRules::fromEnvironment(env);
    const QNetworkProxy proxy = rules.proxyFor(QUrl(QStringLiteral("https://cloud.example")));
    QCOMPARE(proxy.user(), QStringLiteral("al@ice"));
    QCOMPARE(proxy.password(), QStringLiteral("p:ss"));
    const QString shown = rules.describe();
    QVERIFY2(shown.contains(QStringLiteral("http://proxy.corp:3128")), qPrintable(shown));
    QVERIFY2(!shown.contains(QStringLiteral("p:ss")) && !shown.contains(QStringLiteral("p%3Ass")), qPrintable(shown));
}

void tst_ProxyRules::unusableSettingsAreReported()
{
    QProcessEnvironment env;
    env.insert(QStringLiteral("HTTPS_PROXY"), QStringLiteral("socks5://proxy.corp:1080"));
    env.insert(QStringLiteral("NO_PROXY"), QStringLiteral("10.0.0.0/99, ok.test"));
    const ProxyRules rules = ProxyRules::fromEnvironment(env);
    QCOMPARE(rules.problems().size(), 2);
    QVERIFY2(
        rules.problems().at(0).contains(QStringLiteral("only http:// proxies")), qPrintable(rules.problems().at(0)));
    QVERIFY2(rules.problems().at(1).contains(QStringLiteral("10.0.0.0/99")), qPrintable(rules.problems().at(1)));
    QVERIFY(rules.isEmpty());
    QCOMPARE(rules.proxyFor(QUrl(QStringLiteral("https://cloud.example"))).type(), QNetworkProxy::NoProxy);
}

QTEST_GUILESS_MAIN(tst_ProxyRules)
#include "tst_proxyrules.moc"
