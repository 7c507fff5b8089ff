// The session catalogue as the cloud drives it: `isolation-hub call SERVER session.*` through the
// tunnel of a real `isolation-server up` paired with the real hub — save (published, nothing to
// save, moved on), sync (fast-forward, conflict, resolve), changes (with refresh), agent — and
// the hub's Sessions page buttons that make the same calls. No answer is made up by the test:
// every outcome is read back from git and the hub.
#include "sessionfixture.h"

#include "../workspace/gitcli.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QUrlQuery>

using namespace isolation::test;

namespace {

struct Sess
{
    QString id;
    QString work;
    QString gitDir;

    GitRun git(const QStringList &args) const { return GitCli::inRepo(gitDir, args, work); }
    QByteArray ref(const QString &name) const
    {
        return git({QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"), name}).out.trimmed();
    }
    bool write(const QString &path, const QByteArray &bytes) const { return GitCli::writeFile(work + '/' + path, bytes); }
    QByteArray read(const QString &path) const { return GitCli::readFile(work + '/' + path); }
};

Sess sessionOf(const QJsonObject &o)
{
    const QString work = o.value(QStringLiteral("worktree")).toString();
    return {o.value(QStringLiteral("id")).toString(), work, QFileInfo(work).path() + QStringLiteral("/git")};
}

// What `isolation-hub call` printed: the result, or {"error": {...}} on a failed call.
struct Call
{
    int exitCode = -1;
    QJsonObject out;
    QString err;

    QString errorCode() const { return out.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(); }
    QString describe() const
    {
        return QStringLiteral("exit %1, out %2, err %3")
            .arg(exitCode)
            .arg(QString::fromUtf8(QJsonDocument(out).toJson(QJsonDocument::Compact)), err);
    }
};

} // namespace

class tst_SessionCalls final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void saveChangesAndMovedOn();
    void syncConflictThenResolve();
    void wrongSessionAndParams();
    void hubPageButtons();
    void activityLogKeptAcrossRestart();

private:
    Call call(const QString &method, const QJsonObject &params);
    bool twoSessions(const QString &workspace, Sess *a, Sess *b);

    std::unique_ptr<SessionFixture> m_fx;
    QString m_server;
};

void tst_SessionCalls::initTestCase()
{
    m_fx = std::make_unique<SessionFixture>();
    QVERIFY(m_fx->start(1));
    QVERIFY(m_fx->startEngine(0));
    m_server = m_fx->cli(0, {QStringLiteral("status"), QStringLiteral("--json")})
                   .json()
                   .value(QStringLiteral("serverId"))
                   .toString();
    QVERIFY(!m_server.isEmpty());
    // The tunnel comes up a moment after the LocalAPI answers.
    QVERIFY(QTest::qWaitFor([&] { return call(QStringLiteral("ping"), {}).exitCode == 0; }, 30000));
}

void tst_SessionCalls::cleanupTestCase()
{
    QCOMPARE(m_fx->stopEngine(0), 0);
    m_fx.reset();
}

Call tst_SessionCalls::call(const QString &method, const QJsonObject &params)
{
    Call c;
    QString out;
    c.exitCode = m_fx->hub().admin({QStringLiteral("call"), m_server, method, QStringLiteral("--params"),
                                       QString::fromUtf8(QJsonDocument(params).toJson(QJsonDocument::Compact)),
                                       QStringLiteral("--timeout"), QStringLiteral("120")},
        &out, &c.err);
    c.out = QJsonDocument::fromJson(out.toUtf8()).object();
    return c;
}

bool tst_SessionCalls::twoSessions(const QString &workspace, Sess *a, Sess *b)
{
    if (m_fx->createWorkspace(workspace).isEmpty())
        return false;
    *a = sessionOf(m_fx->newSession(0, workspace));
    *b = sessionOf(m_fx->newSession(0, workspace));
    return !a->id.isEmpty() && !b->id.isEmpty();
}

void tst_SessionCalls::saveChangesAndMovedOn()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("calls"), &a, &b));
    QVERIFY(a.write(QStringLiteral("x.txt"), "x\n"));

    Call c = call(QStringLiteral("session.changes"), {{QStringLiteral("session"), a.id}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    const QJsonArray files = c.out.value(QStringLiteral("files")).toArray();
    QCOMPARE(files.size(), 1);
    QCOMPARE(files.first().toObject().value(QStringLiteral("path")).toString(), QStringLiteral("x.txt"));

    c = call(QStringLiteral("session.save"), {{QStringLiteral("session"), a.id}, {QStringLiteral("message"), QStringLiteral("saved by the cloud")}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QCOMPARE(c.out.value(QStringLiteral("outcome")).toString(), QStringLiteral("published"));
    QCOMPARE(c.out.value(QStringLiteral("session")).toString(), a.id);
    QVERIFY(c.out.value(QStringLiteral("segmentBytes")).toInteger() > 0);
    // main holds it, with the cloud's message.
    QCOMPARE(a.git({QStringLiteral("show"), QStringLiteral("main:x.txt")}).out, QByteArray("x\n"));
    QCOMPARE(QString::fromUtf8(a.git({QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s"),
                                          QStringLiteral("main^2")})
                                   .out.trimmed()),
        QStringLiteral("saved by the cloud"));
    QCOMPARE(QString::fromLatin1(a.ref(QStringLiteral("refs/heads/main"))), c.out.value(QStringLiteral("main")).toString());

    c = call(QStringLiteral("session.save"), {{QStringLiteral("session"), a.id}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QCOMPARE(c.out.value(QStringLiteral("outcome")).toString(), QStringLiteral("nothing_to_save"));

    // b started before a's save: a refreshed changes call says main moved on, and b's save is
    // refused with the hub's 412 as moved_on; b's work stays on its branch.
    c = call(QStringLiteral("session.changes"), {{QStringLiteral("session"), b.id}, {QStringLiteral("refresh"), true}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QVERIFY(c.out.value(QStringLiteral("refreshed")).toBool());
    QVERIFY(c.out.value(QStringLiteral("movedOn")).toBool());
    QVERIFY(b.write(QStringLiteral("y.txt"), "y\n"));
    c = call(QStringLiteral("session.save"), {{QStringLiteral("session"), b.id}});
    QCOMPARE(c.exitCode, 1);
    QCOMPARE(c.errorCode(), QStringLiteral("moved_on"));
    QVERIFY2(c.err.contains(QStringLiteral("isolation-hub:")), qPrintable(c.err));
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("session/") + b.id + QStringLiteral(":y.txt")}).out, QByteArray("y\n"));

    // Sync, then save: both files reach main.
    c = call(QStringLiteral("session.sync"), {{QStringLiteral("session"), b.id}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QCOMPARE(c.out.value(QStringLiteral("outcome")).toString(), QStringLiteral("merged"));
    c = call(QStringLiteral("session.save"), {{QStringLiteral("session"), b.id}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QCOMPARE(c.out.value(QStringLiteral("outcome")).toString(), QStringLiteral("published"));
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("main:x.txt")}).out, QByteArray("x\n"));
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("main:y.txt")}).out, QByteArray("y\n"));
}

void tst_SessionCalls::syncConflictThenResolve()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("conflicts"), &a, &b));
    QVERIFY(a.write(QStringLiteral("f.txt"), "base\n"));
    QCOMPARE(call(QStringLiteral("session.save"), {{QStringLiteral("session"), a.id}}).exitCode, 0);
    Call c = call(QStringLiteral("session.sync"), {{QStringLiteral("session"), b.id}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QCOMPARE(c.out.value(QStringLiteral("outcome")).toString(), QStringLiteral("fast_forwarded"));
    QCOMPARE(b.read(QStringLiteral("f.txt")), QByteArray("base\n"));

    QVERIFY(a.write(QStringLiteral("f.txt"), "from a\n"));
    QCOMPARE(call(QStringLiteral("session.save"), {{QStringLiteral("session"), a.id}}).exitCode, 0);
    QVERIFY(b.write(QStringLiteral("f.txt"), "from b\n"));
    QCOMPARE(call(QStringLiteral("session.save"), {{QStringLiteral("session"), b.id}}).errorCode(), QStringLiteral("moved_on"));

    // The default stops on the conflict, names the file, and changes nothing.
    const QByteArray branch = b.ref(QStringLiteral("refs/heads/session/") + b.id);
    c = call(QStringLiteral("session.sync"), {{QStringLiteral("session"), b.id}});
    QCOMPARE(c.exitCode, 1);
    QCOMPARE(c.errorCode(), QStringLiteral("conflict"));
    const QJsonArray conflicts = c.out.value(QStringLiteral("error")).toObject().value(QStringLiteral("conflicts")).toArray();
    QCOMPARE(conflicts.size(), 1);
    QCOMPARE(conflicts.first().toObject().value(QStringLiteral("path")).toString(), QStringLiteral("f.txt"));
    QCOMPARE(b.read(QStringLiteral("f.txt")), QByteArray("from b\n"));
    QCOMPARE(b.ref(QStringLiteral("refs/heads/session/") + b.id), branch);

    // resolve: the markers are left in the file, and changes shows the merge in progress.
    c = call(QStringLiteral("session.sync"), {{QStringLiteral("session"), b.id}, {QStringLiteral("resolve"), true}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QCOMPARE(c.out.value(QStringLiteral("outcome")).toString(), QStringLiteral("conflicts_left"));
    const QByteArray marked = b.read(QStringLiteral("f.txt"));
    QVERIFY2(marked.contains("<<<<<<<") && marked.contains("from a") && marked.contains("from b"), marked.constData());
    c = call(QStringLiteral("session.changes"), {{QStringLiteral("session"), b.id}});
    QVERIFY(c.out.value(QStringLiteral("mergeInProgress")).toBool());

    // Resolved by hand, then saved over the tunnel: the merge completes on main.
    QVERIFY(b.write(QStringLiteral("f.txt"), "from both\n"));
    c = call(QStringLiteral("session.save"), {{QStringLiteral("session"), b.id}});
    QVERIFY2(c.exitCode == 0, qPrintable(c.describe()));
    QVERIFY(c.out.value(QStringLiteral("completedMerge")).toBool());
    QCOMPARE(b.git({QStringLiteral("show"), QStringLiteral("main:f.txt")}).out, QByteArray("from both\n"));
}

void tst_SessionCalls::wrongSessionAndParams()
{
    Call c = call(QStringLiteral("session.save"), {{QStringLiteral("session"), QStringLiteral("s000000000000")}});
    QCOMPARE(c.exitCode, 1);
    QCOMPARE(c.errorCode(), QStringLiteral("not_found"));
    c = call(QStringLiteral("session.sync"), {});
    QCOMPARE(c.errorCode(), QStringLiteral("bad_request"));
    c = call(QStringLiteral("session.save"), {{QStringLiteral("session"), QStringLiteral("s000000000000")},
                                                 {QStringLiteral("files"), QStringLiteral("not a list")}});
    QCOMPARE(c.errorCode(), QStringLiteral("bad_request"));
    // A session without a sandbox runs no agent.
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("agentless"), &a, &b));
    c = call(QStringLiteral("session.agent"), {{QStringLiteral("session"), a.id}});
    QCOMPARE(c.exitCode, 1);
    QCOMPARE(c.errorCode(), QStringLiteral("not_found"));
}

// The member's Sessions page on the hub: each session has Save, Sync and Changes buttons, which
// make the calls above through the server's tunnel and say what came of them.
void tst_SessionCalls::hubPageButtons()
{
    Sess a, b;
    QVERIFY(twoSessions(QStringLiteral("paged-calls"), &a, &b));
    QNetworkAccessManager net; // its cookie jar keeps the page session
    const QUrl base = m_fx->hub().appUrl();
    const auto get = [&](const QUrl &url) {
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        QNetworkReply *reply = net.get(request);
        QSignalSpy done(reply, &QNetworkReply::finished);
        done.wait(30000);
        const QByteArray body = reply->readAll();
        reply->deleteLater();
        return QString::fromUtf8(body);
    };
    QString page = get(base.resolved(QUrl(QStringLiteral("/sessions"))));
    const QString csrf = QRegularExpression(QStringLiteral("name=csrf value=\"([^\"]+)\"")).match(page).captured(1);
    QVERIFY2(!csrf.isEmpty(), qPrintable(page));
    for (const char *action : {"save", "sync", "changes"}) {
        QVERIFY2(page.contains(QStringLiteral("<button name=action value=%1 aria-label=\"").arg(QLatin1String(action))),
            qPrintable(page));
    }
    // Presses a button of a's row; the page the redirect leads to, with its notice or problem.
    const auto press = [&](const QString &action) {
        QNetworkRequest request(base.resolved(QUrl(QStringLiteral("/sessions"))));
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/x-www-form-urlencoded"));
        request.setRawHeader("Origin", base.adjusted(QUrl::RemovePath).toString().toUtf8());
        QUrlQuery form;
        form.addQueryItem(QStringLiteral("csrf"), csrf);
        form.addQueryItem(QStringLiteral("server"), m_server);
        form.addQueryItem(QStringLiteral("session"), a.id);
        form.addQueryItem(QStringLiteral("action"), action);
        QNetworkReply *reply = net.post(request, form.toString(QUrl::FullyEncoded).toUtf8());
        QSignalSpy done(reply, &QNetworkReply::finished);
        done.wait(300000);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QUrl location = base.resolved(QUrl(QString::fromUtf8(reply->rawHeader("Location"))));
        reply->deleteLater();
        return status == 303 ? get(location) : QStringLiteral("HTTP %1").arg(status);
    };
    QVERIFY(a.write(QStringLiteral("paged.txt"), "from the page\n"));
    page = press(QStringLiteral("changes"));
    QVERIFY2(page.contains(QStringLiteral("%1: 1 changed: paged.txt").arg(a.id)), qPrintable(page));
    page = press(QStringLiteral("save"));
    QVERIFY2(page.contains(QStringLiteral("%1 saved: commit").arg(a.id)), qPrintable(page));
    QCOMPARE(a.git({QStringLiteral("show"), QStringLiteral("main:paged.txt")}).out, QByteArray("from the page\n"));
    page = press(QStringLiteral("save"));
    QVERIFY2(page.contains(QStringLiteral("%1: nothing to save.").arg(a.id)), qPrintable(page));
    page = press(QStringLiteral("sync"));
    // (Its save made main a commit of its own the session branch then takes: fast_forwarded.)
    QVERIFY2(page.contains(QStringLiteral("%1 synced: fast_forwarded.").arg(a.id))
            || page.contains(QStringLiteral("%1 synced: up_to_date.").arg(a.id)),
        qPrintable(page));

    // b, behind a: its save is refused and the page says what to do.
    QVERIFY(b.write(QStringLiteral("other.txt"), "b\n"));
    std::swap(a, b);
    page = press(QStringLiteral("save"));
    QVERIFY2(page.contains(QStringLiteral("another session saved first. Sync, then save again.")), qPrintable(page));
    QVERIFY(page.contains(QStringLiteral("class=bad role=alert")));
}

// What the tests above did, as the engine's activity log tells it (nothing recorded by the test):
// sessions made from the CLI, saves and syncs asked by the cloud with their outcomes, bytes and
// conflicts; kept across a restart of the engine; `activity` prints it.
void tst_SessionCalls::activityLogKeptAcrossRestart()
{
    const auto entries = [&](const QString &kind) {
        const CliRun r = m_fx->cli(0, {QStringLiteral("activity"), QStringLiteral("--json"), QStringLiteral("--kind"), kind});
        return r.json().value(QStringLiteral("activity")).toArray();
    };
    const auto find = [](const QJsonArray &list, const QVariantMap &details) {
        for (const QJsonValue v : list) {
            const QVariantMap has = v.toObject().value(QStringLiteral("details")).toObject().toVariantMap();
            bool all = true;
            for (auto it = details.cbegin(); it != details.cend(); ++it)
                all = all && has.value(it.key()) == it.value();
            if (all)
                return v.toObject();
        }
        return QJsonObject();
    };
    const auto check = [&] {
        const QJsonArray sessions = entries(QStringLiteral("session"));
        const QJsonObject created = find(sessions,
            {{QStringLiteral("event"), QStringLiteral("created")}, {QStringLiteral("door"), QStringLiteral("cli")},
                {QStringLiteral("workspace"), QStringLiteral("calls")}});
        QVERIFY2(!created.isEmpty(), qPrintable(QJsonDocument(sessions).toJson()));
        QVERIFY(created.value(QStringLiteral("message")).toString().contains(QStringLiteral("from the command line")));
        const QJsonArray saves = entries(QStringLiteral("save"));
        const QJsonObject published = find(saves,
            {{QStringLiteral("door"), QStringLiteral("cloud")}, {QStringLiteral("outcome"), QStringLiteral("published")},
                {QStringLiteral("workspace"), QStringLiteral("calls")}});
        QVERIFY2(!published.isEmpty(), qPrintable(QJsonDocument(saves).toJson()));
        QVERIFY(published.value(QStringLiteral("details")).toObject().value(QStringLiteral("bytes")).toInteger() > 0);
        QVERIFY(!find(saves, {{QStringLiteral("door"), QStringLiteral("cloud")}, {QStringLiteral("outcome"), QStringLiteral("moved_on")}})
                     .isEmpty());
        const QJsonArray syncs = entries(QStringLiteral("sync"));
        const QJsonObject conflict = find(syncs,
            {{QStringLiteral("door"), QStringLiteral("cloud")}, {QStringLiteral("outcome"), QStringLiteral("conflict")}});
        QVERIFY2(!conflict.isEmpty(), qPrintable(QJsonDocument(syncs).toJson()));
        QCOMPARE(conflict.value(QStringLiteral("details")).toObject().value(QStringLiteral("conflicts")).toArray().size(), 1);
        QVERIFY(!find(syncs, {{QStringLiteral("outcome"), QStringLiteral("conflicts_left")}}).isEmpty());
    };
    check();
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(m_fx->stopEngine(0), 0);
    QVERIFY(m_fx->startEngine(0));
    check();
    const CliRun text = m_fx->cli(0, {QStringLiteral("activity"), QStringLiteral("--kind"), QStringLiteral("save")});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("another session saved first"), text.out.constData());
}

QTEST_GUILESS_MAIN(tst_SessionCalls)
#include "tst_sessioncalls.moc"
