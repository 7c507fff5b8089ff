// A headless Debian chromium driven through chromedriver (W3C WebDriver over HTTP on loopback):
// starts both, a fresh profile per run, and offers the few commands the view tests use. Calls
// turn the event loop while they wait, so servers in the test process keep answering.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QUrl>

namespace isolation::test {

class WebDriver
{
public:
    ~WebDriver();
    // Empty when chromium and chromedriver are installed; otherwise what is missing.
    static QString missing();
    bool start();

    bool navigate(const QUrl &url);
    QUrl currentUrl();
    QString title();
    // Runs `script` (a function body; `arguments` holds `args`) in the page; its return value.
    QJsonValue execute(const QString &script, const QJsonArray &args = {});
    // The same for a script that calls its last argument (the callback) when done.
    QJsonValue executeAsync(const QString &script, const QJsonArray &args = {});
    // Types `text` into the element `css` selects.
    bool type(const QString &css, const QString &text);
    // The lines a terminal view's page shows (its xterm.js buffer, window.isolationTerminal).
    QStringList terminalLines();
    // True when a terminal view's cursor stands right after a shell prompt ("# " or "$ "): the shell
    // waits for a command, and has had the answers to what it asked the terminal (busybox's line
    // editor asks for the cursor position with each prompt, in the same write).
    bool terminalAtPrompt();
    QString lastError() const { return m_error; }

private:
    QJsonValue call(const QByteArray &method, const QString &path, const QJsonObject &body = {}, int timeoutMs = 30000);

    QTemporaryDir m_profile;
    QProcess m_driver;
    QNetworkAccessManager m_net;
    quint16 m_port = 0;
    QString m_session;
    QString m_error;
};

} // namespace isolation::test
