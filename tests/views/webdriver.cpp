#include "webdriver.h"

#include "doormanfixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QTest>

namespace isolation::test {

namespace {
const QString kChromium = QStringLiteral("/usr/bin/chromium");
const QString kDriver = QStringLiteral("/usr/bin/chromedriver");
} // namespace

QString WebDriver::missing()
{
    if (!QFile::exists(kChromium) || !QFile::exists(kDriver))
        return QStringLiteral("chromium and chromium-driver are not installed (./dev setup installs them)");
    return {};
}

WebDriver::~WebDriver()
{
    if (!m_session.isEmpty())
        call("DELETE", QStringLiteral("/session/") + m_session, {}, 10000);
    if (m_driver.state() != QProcess::NotRunning) {
        m_driver.terminate();
        if (!m_driver.waitForFinished(5000)) {
            m_driver.kill();
            m_driver.waitForFinished(5000);
        }
    }
}

bool WebDriver::start()
{
    if (!m_profile.isValid())
        return false;
    m_port = freePort();
    m_driver.setProcessChannelMode(QProcess::MergedChannels);
    m_driver.start(kDriver, {QStringLiteral("--port=%1").arg(m_port), QStringLiteral("--allowed-ips=127.0.0.1")});
    if (!m_driver.waitForStarted(10000))
        return false;
    for (int i = 0; i < 100; ++i) {
        QTcpSocket s;
        if (connectSocket(s, m_port))
            break;
        QTest::qWait(100);
    }
    const QJsonArray args {QStringLiteral("--headless=new"), QStringLiteral("--no-sandbox"),
        QStringLiteral("--disable-gpu"), QStringLiteral("--disable-dev-shm-usage"),
        QStringLiteral("--disable-background-networking"), QStringLiteral("--disable-component-update"),
        QStringLiteral("--disable-sync"), QStringLiteral("--no-first-run"), QStringLiteral("--no-proxy-server"),
        QString(QStringLiteral("--user-data-dir=") + m_profile.path())};
    const QJsonObject caps {{QStringLiteral("capabilities"),
        QJsonObject {{QStringLiteral("alwaysMatch"),
            QJsonObject {{QStringLiteral("browserName"), QStringLiteral("chrome")},
                {QStringLiteral("goog:chromeOptions"),
                    QJsonObject {{QStringLiteral("binary"), kChromium}, {QStringLiteral("args"), args}}}}}}}};
    const QJsonValue v = call("POST", QStringLiteral("/session"), caps, 60000);
    m_session = v.toObject().value(QStringLiteral("sessionId")).toString();
    if (m_session.isEmpty())
        qWarning("chromedriver: no session: %s\n%s", qPrintable(m_error), m_driver.readAll().constData());
    return !m_session.isEmpty();
}

QJsonValue WebDriver::call(const QByteArray &method, const QString &path, const QJsonObject &body, int timeoutMs)
{
    m_error.clear();
    QNetworkRequest r(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_port).arg(path)));
    r.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
    r.setTransferTimeout(timeoutMs);
    QNetworkReply *reply = m_net.sendCustomRequest(r, method,
        method == "GET" || method == "DELETE" ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact));
    if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, timeoutMs + 1000))
        reply->abort();
    const QJsonObject answer = QJsonDocument::fromJson(reply->readAll()).object();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    const QJsonValue value = answer.value(QStringLiteral("value"));
    if (status != 200) {
        m_error = QStringLiteral("%1 %2: %3 %4")
                      .arg(QString::fromLatin1(method), path, QString::number(status),
                          value.toObject().value(QStringLiteral("message")).toString().left(400));
        return QJsonValue::Undefined;
    }
    return value;
}

bool WebDriver::navigate(const QUrl &url)
{
    call("POST", QStringLiteral("/session/%1/url").arg(m_session),
        {{QStringLiteral("url"), url.toString(QUrl::FullyEncoded)}});
    return m_error.isEmpty();
}

QUrl WebDriver::currentUrl()
{
    return QUrl(call("GET", QStringLiteral("/session/%1/url").arg(m_session)).toString());
}

QString WebDriver::title()
{
    return call("GET", QStringLiteral("/session/%1/title").arg(m_session)).toString();
}

QJsonValue WebDriver::execute(const QString &script, const QJsonArray &args)
{
    return call("POST", QStringLiteral("/session/%1/execute/sync").arg(m_session),
        {{QStringLiteral("script"), script}, {QStringLiteral("args"), args}});
}

QStringList WebDriver::terminalLines()
{
    const QJsonValue lines = execute(QStringLiteral(R"(
        const b = window.isolationTerminal.buffer.active;
        const lines = [];
        for (let i = 0; i < b.length; i++) lines.push(b.getLine(i).translateToString(true));
        return lines;
    )"));
    QStringList out;
    for (const QJsonValue &l : lines.toArray())
        out << l.toString();
    return out;
}

bool WebDriver::terminalAtPrompt()
{
    return execute(QStringLiteral(R"(
        const b = window.isolationTerminal && window.isolationTerminal.buffer.active;
        const line = b && b.getLine(b.baseY + b.cursorY);
        return !!line && /[#$] $/.test(line.translateToString(false, 0, b.cursorX));
    )"))
        .toBool();
}

QJsonValue WebDriver::executeAsync(const QString &script, const QJsonArray &args)
{
    return call("POST", QStringLiteral("/session/%1/execute/async").arg(m_session),
        {{QStringLiteral("script"), script}, {QStringLiteral("args"), args}});
}

bool WebDriver::type(const QString &css, const QString &text)
{
    const QJsonValue found = call("POST", QStringLiteral("/session/%1/element").arg(m_session),
        {{QStringLiteral("using"), QStringLiteral("css selector")}, {QStringLiteral("value"), css}});
    const QString element = found.toObject().value(QStringLiteral("element-6066-11e4-a52e-4f735466cecf")).toString();
    if (element.isEmpty())
        return false;
    call("POST", QStringLiteral("/session/%1/element/%2/value").arg(m_session, element),
        {{QStringLiteral("text"), text}});
    return m_error.isEmpty();
}

} // namespace isolation::test
