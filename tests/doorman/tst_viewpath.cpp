// ViewPath: request targets made unambiguous. Paths that are already in the doorman's one form
// take a short way through parse(); each row here says what either way must give, and the
// generated rows check that the short way and the long way agree on every path of a small alphabet.
#include "doorman/viewpath.h"

#include <QTest>

using namespace isolation;

class TstViewPath : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parses_data()
    {
        QTest::addColumn<QByteArray>("target");
        QTest::addColumn<QByteArray>("path"); // empty: refused
        QTest::addColumn<QByteArray>("decoded");
        QTest::addColumn<QByteArray>("query");
        QTest::addColumn<QByteArray>("token");
        QTest::newRow("root") << QByteArray("/") << QByteArray("/") << QByteArray("/") << QByteArray() << QByteArray();
        QTest::newRow("plain") << QByteArray("/a/b.txt") << QByteArray("/a/b.txt") << QByteArray("/a/b.txt")
                               << QByteArray() << QByteArray();
        QTest::newRow("trailing slash") << QByteArray("/a/") << QByteArray("/a/") << QByteArray("/a/") << QByteArray()
                                        << QByteArray();
        QTest::newRow("sub-delims kept") << QByteArray("/a:b@c!$&'()*+,;=~") << QByteArray("/a:b@c!$&'()*+,;=~")
                                         << QByteArray("/a:b@c!$&'()*+,;=~") << QByteArray() << QByteArray();
        QTest::newRow("empty segments dropped") << QByteArray("/a//b") << QByteArray("/a/b") << QByteArray("/a/b")
                                                << QByteArray() << QByteArray();
        QTest::newRow("dot") << QByteArray("/a/./b") << QByteArray("/a/b") << QByteArray("/a/b") << QByteArray()
                             << QByteArray();
        QTest::newRow("dot-dot") << QByteArray("/a/b/../c") << QByteArray("/a/c") << QByteArray("/a/c") << QByteArray()
                                 << QByteArray();
        QTest::newRow("dot-dot at the end") << QByteArray("/a/b/..") << QByteArray("/a/") << QByteArray("/a/")
                                            << QByteArray() << QByteArray();
        QTest::newRow("above the root") << QByteArray("/..") << QByteArray() << QByteArray() << QByteArray()
                                        << QByteArray();
        QTest::newRow("encoded dot-dot") << QByteArray("/a/%2e%2E/%2e%2e") << QByteArray() << QByteArray()
                                         << QByteArray() << QByteArray();
        QTest::newRow("escape normalised") << QByteArray("/a%41%7e%20b") << QByteArray("/aA~%20b")
                                           << QByteArray("/aA~ b") << QByteArray() << QByteArray();
        QTest::newRow("brace encoded") << QByteArray("/a{b}") << QByteArray("/a%7Bb%7D") << QByteArray("/a{b}")
                                       << QByteArray() << QByteArray();
        QTest::newRow("encoded slash") << QByteArray("/a%2fb") << QByteArray() << QByteArray() << QByteArray()
                                       << QByteArray();
        QTest::newRow("bad escape") << QByteArray("/a%4") << QByteArray() << QByteArray() << QByteArray()
                                    << QByteArray();
        QTest::newRow("backslash") << QByteArray("/a\\b") << QByteArray() << QByteArray() << QByteArray()
                                   << QByteArray();
        QTest::newRow("not absolute") << QByteArray("a/b") << QByteArray() << QByteArray() << QByteArray()
                                      << QByteArray();
        QTest::newRow("network-path") << QByteArray("//host/a") << QByteArray() << QByteArray() << QByteArray()
                                      << QByteArray();
        QTest::newRow("query kept") << QByteArray("/a?x=1&&y=%20") << QByteArray("/a") << QByteArray("/a")
                                    << QByteArray("x=1&y=%20") << QByteArray();
        QTest::newRow("token taken out") << QByteArray("/a?x=1&view_token=abc.def&y=2") << QByteArray("/a")
                                         << QByteArray("/a") << QByteArray("x=1&y=2") << QByteArray("abc.def");
        QTest::newRow("encoded token name") << QByteArray("/?view%5Ftoken=t") << QByteArray("/") << QByteArray("/")
                                            << QByteArray() << QByteArray("t");
        QTest::newRow("two tokens") << QByteArray("/?view_token=a&view_token=b") << QByteArray() << QByteArray()
                                    << QByteArray() << QByteArray();
    }
    void parses()
    {
        QFETCH(QByteArray, target);
        QFETCH(QByteArray, path);
        QFETCH(QByteArray, decoded);
        QFETCH(QByteArray, query);
        QFETCH(QByteArray, token);
        const auto r = ViewPath::parse(target);
        if (path.isEmpty()) {
            QVERIFY2(!r, r ? r.value().path.constData() : "");
            return;
        }
        QVERIFY2(r, r ? "" : qPrintable(r.error().message));
        QCOMPARE(r.value().path, path);
        QCOMPARE(r.value().decodedPath, decoded);
        QCOMPARE(r.value().query, query);
        QCOMPARE(r.value().token, token);
    }

    // Every path of up to six characters from "/a.%2" (after the first "/"): the short way (no query) and the long way
    // (the same path with an empty-valued query item, which forces it) give the same path.
    void theShortWayAgreesWithTheLongWay()
    {
        const QByteArray alphabet = "/a.%2";
        QList<QByteArray> paths {"/"};
        QList<QByteArray> layer = paths;
        for (int length = 1; length <= 5; ++length) {
            QList<QByteArray> next;
            for (const QByteArray &p : std::as_const(layer)) {
                for (char c : alphabet)
                    next.append(p + c);
            }
            paths += next;
            layer = next;
        }
        int compared = 0;
        for (const QByteArray &p : std::as_const(paths)) {
            const auto shortWay = ViewPath::parse(p);
            const auto longWay = ViewPath::parse(QByteArray(p + "?x"));
            QCOMPARE(bool(shortWay), bool(longWay));
            if (!shortWay)
                continue;
            QCOMPARE(shortWay.value().path, longWay.value().path);
            QCOMPARE(shortWay.value().decodedPath, longWay.value().decodedPath);
            ++compared;
        }
        QVERIFY(compared > 500);
    }
};

QTEST_MAIN(TstViewPath)
#include "tst_viewpath.moc"
