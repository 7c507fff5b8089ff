// Starts a real isolation-hub for a test (ports chosen by the system, data in a temporary
// directory) and stops it again. Tests talk to it over real sockets.
#pragma once

#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

namespace isolation::test {

class HubProcess
{
public:
    HubProcess();
    ~HubProcess();

    // Starts the hub and waits until it printed its origins. Empty `dataDir` means a fresh one.
    // `extraArgs` go to `serve` (e.g. --heartbeat-interval 1).
    bool start(const QString &dataDir = {}, const QStringList &extraArgs = {});
    // Starts again on the same data directory and ports.
    bool restart();
    // SIGTERM, then wait; returns the exit code (-1 when it had to be killed).
    int stop();
    void kill();

    QUrl appUrl() const { return m_app; }
    QUrl previewUrl() const { return m_preview; }
    QString dataDir() const { return m_dataDir; }
    QString output() const;
    QProcess &process() { return m_process; }

    // Runs `isolation-hub --data DIR args...` and returns its exit code, stdout in *out.
    int admin(const QStringList &args, QString *out = nullptr, QString *err = nullptr) const;

private:
    std::unique_ptr<QTemporaryDir> m_tmp;
    QString m_dataDir;
    QProcess m_process;
    QByteArray m_out;
    QUrl m_app;
    QUrl m_preview;
    QStringList m_extra;
};

QString hubBinary();
QString serverBinary();
QString engineBinary(); // libexec/isolation/isolation-engine, what `isolation-server up` hands over to
QString trayBinary();

} // namespace isolation::test
