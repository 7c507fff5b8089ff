// What is wrong with the engine now, as typed warnings (as Tailscale's health package keeps them):
// each has a code, a severity, a text that says what to do, the time it began, and a delay before
// it is shown — a tunnel down for 2 s is no warning, down for 30 s is. The engine raises a warning
// while its cause holds and clears it when the cause goes; `visible()` is what `status`, the
// tray's tooltip and window show (docs/architecture.md, "Health warnings").
#pragma once

#include <QDateTime>
#include <QJsonArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <map>
#include <memory>

namespace isolation {

enum class HealthSeverity { Warning, Error };
QString healthSeverityName(HealthSeverity severity); // "warning", "error"

struct HealthWarning
{
    QString code; // stable: "tunnel_down", "runtime_unhealthy", ...
    HealthSeverity severity = HealthSeverity::Warning;
    QString message; // what is wrong and what to do, one line
    QDateTime since; // UTC: when the cause began (not when it was shown)
};

class HealthWarnings final : public QObject
{
    Q_OBJECT
public:
    explicit HealthWarnings(QObject *parent = nullptr);
    ~HealthWarnings() override;

    // The cause of `code` holds. The first raise starts its clock; it is shown once it has held for
    // `delay`. Raising it again keeps its start (severity and message may change); until it is
    // shown, the latest raise's delay counts from that start.
    void raise(const QString &code, HealthSeverity severity, const QString &message, std::chrono::milliseconds delay);
    void clear(const QString &code);
    void clearAll();

    // The warnings shown now, oldest first.
    QList<HealthWarning> visible() const;
    // [{"code", "severity", "message", "since"}], as `GET /v1/status` carries them.
    QJsonArray toJson() const;

Q_SIGNALS:
    void changed(); // visible() changed

private:
    struct Entry
    {
        HealthWarning warning;
        bool shown = false;
        std::unique_ptr<QTimer> timer; // until shown
    };
    void show(const QString &code);

    std::map<QString, Entry> m_entries;
};

} // namespace isolation
