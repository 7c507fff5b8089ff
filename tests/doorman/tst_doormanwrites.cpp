// The doorman's rules for the requests that act in a sandbox (the terminal's run, the files view's
// upload) and for its cookie, on its local door against the stand-in execd: only the view's own
// page may run or upload (Sec-Fetch-Site: same-origin), with a body no form can send (JSON, the
// file's bytes as application/octet-stream); the refused never reach execd. The cookie is a
// "__Host-" cookie; a neighbour's cookie of the old name beside it changes nothing. The multipart
// boundary towards execd is 128 random bits. (The same in a real browser: tst_viewneighbours.)
#include "doormanfixture.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace isolation;
using namespace isolation::test;

class tst_DoormanWrites final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cookieIsHostPrefixed();
    void neighboursCookieChangesNothing();
    void terminalRun_data();
    void terminalRun();
    void upload_data();
    void upload();
    void uploadBoundaryIsRandom();

private:
    RawAnswer send(const QString &view, const QByteArray &cookie, const QByteArray &requestLine,
        const QByteArray &head, const QByteArray &body);

    DoormanFixture m_f;
    QTemporaryDir m_files;
    QString m_root;
    const QString m_terminal = QStringLiteral("v0000000000000000000000c1");
    const QString m_filesView = QStringLiteral("v0000000000000000000000c2");
    QByteArray m_terminalCookie;
    QByteArray m_filesCookie;
};

void tst_DoormanWrites::initTestCase()
{
    QVERIFY(m_files.isValid());
    m_root = QDir(m_files.path()).canonicalPath();
    QVERIFY(m_f.start(m_root));
    m_terminalCookie = m_f.open(m_terminal, ViewKind::Terminal, 0);
    QVERIFY2(!m_terminalCookie.isEmpty(), "the terminal view did not open");
    m_filesCookie = m_f.open(m_filesView, ViewKind::Files, 0);
    QVERIFY2(!m_filesCookie.isEmpty(), "the files view did not open");
}

RawAnswer tst_DoormanWrites::send(const QString &view, const QByteArray &cookie, const QByteArray &requestLine,
    const QByteArray &head, const QByteArray &body)
{
    return exchange(m_f.doorPort,
        requestLine + " HTTP/1.1\r\nHost: " + m_f.host(view) + "\r\nCookie: " + cookie + "\r\n" + head
            + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
}

void tst_DoormanWrites::cookieIsHostPrefixed()
{
    // Over plain http (the local door) as over https: a browser takes a "__Host-" cookie only with
    // Secure, Path=/ and no Domain, and http://<view>.localhost is a secure context.
    for (const QByteArray &proto : {QByteArray("http"), QByteArray("https")}) {
        const QString view = proto == "http" ? QStringLiteral("v0000000000000000000000d1")
                                             : QStringLiteral("v0000000000000000000000d2");
        DoorRequest r;
        r.method = "GET";
        r.target = "/?view_token=" + m_f.token(ViewKind::Preview, m_f.appPort, 600, view);
        r.viewId = view;
        r.proto = proto;
        r.host = m_f.host(view);
        r.clientAddress = "127.0.0.1";
        const Admission a = m_f.doorman->admit(r);
        QVERIFY(a.answer);
        QCOMPARE(a.answer->status, 200);
        const QByteArray c = a.answer->header("set-cookie");
        QVERIFY2(c.startsWith("__Host-isolation_view="), c.constData());
        const QList<QByteArray> attributes = c.split(';');
        QSet<QByteArray> names;
        for (const QByteArray &attribute : attributes.mid(1))
            names.insert(attribute.trimmed().split('=').first().toLower());
        QVERIFY2(names.contains("secure"), c.constData());
        QVERIFY2(attributes.contains(" Path=/"), c.constData());
        QVERIFY2(!names.contains("domain"), c.constData());
        QVERIFY(names.contains("httponly"));
        QVERIFY(names.contains("samesite"));
    }
}

void tst_DoormanWrites::neighboursCookieChangesNothing()
{
    // A neighbouring view's page tossed "isolation_view=..." for the whole domain: the browser
    // sends it beside ours, before or after. The view still opens; the sandbox sees neither.
    const QByteArray ours = m_f.open(m_f.viewA, ViewKind::Preview, m_f.appPort);
    QVERIFY(!ours.isEmpty());
    const int before = m_f.appRequests();
    for (const QByteArray &cookies :
        {QByteArray("isolation_view=tossed; " + ours), QByteArray(ours + "; isolation_view=tossed; app=1")}) {
        const RawAnswer a = send(m_f.viewA, cookies, "GET /echo", {}, {});
        QCOMPARE(a.status, 200);
        const QJsonObject seen = QJsonDocument::fromJson(a.body).object();
        const QByteArray all = QJsonDocument(seen).toJson();
        QVERIFY2(!all.contains("isolation_view"), all.constData());
        QVERIFY(!all.contains(ours.mid(ours.indexOf('=') + 1)));
    }
    QCOMPARE(m_f.appRequests(), before + 2);
}

void tst_DoormanWrites::terminalRun_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<int>("status");
    const QByteArray json = "Content-Type: application/json\r\n";
    QTest::newRow("no Sec-Fetch-Site") << json << 403;
    QTest::newRow("cross-site") << QByteArray("Sec-Fetch-Site: cross-site\r\n" + json) << 403;
    // A neighbouring view on the local preview origin is the same site, and a form's post is a navigation.
    QTest::newRow("same-site navigation")
        << QByteArray("Sec-Fetch-Site: same-site\r\nSec-Fetch-Mode: navigate\r\n" + json) << 403;
    QTest::newRow("typed address") << QByteArray("Sec-Fetch-Site: none\r\n" + json) << 403;
    QTest::newRow("same-origin twice")
        << QByteArray("Sec-Fetch-Site: same-origin\r\nSec-Fetch-Site: same-site\r\n" + json) << 403;
    const QByteArray own = "Sec-Fetch-Site: same-origin\r\n";
    QTest::newRow("text/plain") << QByteArray(own + "Content-Type: text/plain;charset=UTF-8\r\n") << 415;
    QTest::newRow("form-encoded") << QByteArray(own + "Content-Type: application/x-www-form-urlencoded\r\n")
                                  << 415;
    QTest::newRow("multipart form")
        << QByteArray(own + "Content-Type: multipart/form-data; boundary=x\r\n") << 415;
    QTest::newRow("no Content-Type") << own << 415;
    QTest::newRow("same-origin, JSON") << QByteArray(own + "Content-Type: application/json; charset=utf-8\r\n")
                                       << 200;
}

void tst_DoormanWrites::terminalRun()
{
    QFETCH(QByteArray, head);
    QFETCH(int, status);
    const QString marker = m_root + QStringLiteral("/ran-") + QString::fromLatin1(QTest::currentDataTag()).replace(
                               QRegularExpression(QStringLiteral("[^a-z]")), QStringLiteral("_"));
    const QByteArray body
        = QJsonDocument(QJsonObject {{QStringLiteral("command"), QStringLiteral("echo ran > '%1'").arg(marker)}})
              .toJson(QJsonDocument::Compact);
    const quint64 forwarded = m_f.doorman->forwarded();
    const RawAnswer a = send(m_terminal, m_terminalCookie, "POST /_view/terminal/run", head, body);
    QCOMPARE(a.status, status);
    if (status == 200) {
        QVERIFY(QFile::exists(marker));
        return;
    }
    // Refused with a clear error body, before anything went to execd.
    const QJsonObject error = QJsonDocument::fromJson(a.body).object().value(QStringLiteral("error")).toObject();
    QCOMPARE(error.value(QStringLiteral("code")).toString(),
        status == 403 ? QStringLiteral("forbidden") : QStringLiteral("unsupported_media_type"));
    QVERIFY(!error.value(QStringLiteral("message")).toString().isEmpty());
    QCOMPARE(m_f.doorman->forwarded(), forwarded);
    QTest::qWait(100);
    QVERIFY(!QFile::exists(marker));
}

void tst_DoormanWrites::upload_data()
{
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<int>("status");
    const QByteArray bytes = "Content-Type: application/octet-stream\r\n";
    QTest::newRow("no Sec-Fetch-Site") << bytes << 403;
    QTest::newRow("same-site") << QByteArray("Sec-Fetch-Site: same-site\r\n" + bytes) << 403;
    QTest::newRow("cross-site") << QByteArray("Sec-Fetch-Site: cross-site\r\n" + bytes) << 403;
    const QByteArray own = "Sec-Fetch-Site: same-origin\r\n";
    QTest::newRow("text/plain") << QByteArray(own + "Content-Type: text/plain\r\n") << 415;
    QTest::newRow("form-encoded") << QByteArray(own + "Content-Type: application/x-www-form-urlencoded\r\n")
                                  << 415;
    QTest::newRow("multipart form")
        << QByteArray(own + "Content-Type: multipart/form-data; boundary=x\r\n") << 415;
    QTest::newRow("no Content-Type") << own << 415;
    QTest::newRow("same-origin, bytes") << QByteArray(own + bytes) << 200;
}

void tst_DoormanWrites::upload()
{
    QFETCH(QByteArray, head);
    QFETCH(int, status);
    const QString name = QString::fromLatin1(QTest::currentDataTag())
                             .replace(QRegularExpression(QStringLiteral("[^a-z]")), QStringLiteral("_"));
    const QString path = m_root + QStringLiteral("/up-") + name;
    const QByteArray content = "uploaded by " + name.toLatin1() + "\n";
    const quint64 forwarded = m_f.doorman->forwarded();
    const RawAnswer a = send(m_filesView, m_filesCookie,
        "PUT /_view/files/upload?path=" + QUrl::toPercentEncoding(path), head, content);
    QCOMPARE(a.status, status);
    if (status == 200) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), content);
        return;
    }
    QCOMPARE(m_f.doorman->forwarded(), forwarded);
    QTest::qWait(100);
    QVERIFY(!QFile::exists(path));
}

void tst_DoormanWrites::uploadBoundaryIsRandom()
{
    // The boundary the doorman writes towards execd: 128 random bits, a new one each time, so that
    // a file cannot hold it and end its part early to add a metadata part of its own.
    const QRegularExpression form(QStringLiteral("^multipart/form-data; boundary=(isolation-[0-9a-f]{32})$"));
    QSet<QByteArray> seen;
    for (int i = 0; i < 200; ++i) {
        DoorRequest r;
        r.method = "PUT";
        r.target = "/_view/files/upload?path=" + QUrl::toPercentEncoding(m_root + QStringLiteral("/b"));
        r.headers = {{"Cookie", m_filesCookie},
            {"Sec-Fetch-Site", "same-origin"},
            {"Content-Type", "application/octet-stream"}};
        r.viewId = m_filesView;
        r.proto = "http";
        r.host = m_f.host(m_filesView);
        const Admission a = m_f.doorman->admit(r);
        QVERIFY(!a.answer);
        const QByteArray type = headerValue(a.headers, "content-type");
        const auto match = form.match(QString::fromLatin1(type));
        QVERIFY2(match.hasMatch(), type.constData());
        const QByteArray boundary = match.captured(1).toLatin1();
        QVERIFY(a.bodyPrefix.startsWith(QByteArray("--" + boundary + "\r\n")));
        QCOMPARE(a.bodySuffix, QByteArray("\r\n--" + boundary + "--\r\n"));
        seen.insert(boundary);
    }
    QCOMPARE(seen.size(), 200);
}

QTEST_GUILESS_MAIN(tst_DoormanWrites)
#include "tst_doormanwrites.moc"
