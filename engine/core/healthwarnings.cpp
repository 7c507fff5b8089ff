#include "healthwarnings.h"

#include <QJsonObject>

#include <algorithm>

namespace isolation {

QString healthSeverityName(HealthSeverity severity)
{
    return severity == HealthSeverity::Error ? QStringLiteral("error") : QStringLiteral("warning");
}

HealthWarnings::HealthWarnings(QObject *parent)
    : QObject(parent)
{ }

HealthWarnings::~HealthWarnings() = default;

void HealthWarnings::raise(
    const QString &code, HealthSeverity severity, const QString &message, std::chrono::milliseconds delay)
{
    auto it = m_entries.find(code);
    if (it == m_entries.end()) {
        Entry e;
        e.warning = {code, severity, message, QDateTime::currentDateTimeUtc()};
        it = m_entries.emplace(code, std::move(e)).first;
        if (delay.count() <= 0) {
            show(code);
            return;
        }
        it->second.timer = std::make_unique<QTimer>();
        it->second.timer->setSingleShot(true);
        connect(it->second.timer.get(), &QTimer::timeout, this, [this, code] { show(code); });
        it->second.timer->start(delay);
        return;
    }
    Entry &e = it->second;
    if (!e.shown) {
        // Not shown yet: the delay that counts is the one of the cause as it is now (a runtime
        // that went from starting to failed is shown 5 s after it began, not 90 s).
        const qint64 left = delay.count() - e.warning.since.msecsTo(QDateTime::currentDateTimeUtc());
        e.warning.severity = severity;
        e.warning.message = message;
        if (left <= 0) {
            show(code);
        } else if (e.timer) {
            e.timer->start(std::chrono::milliseconds(left));
        }
        return;
    }
    if (e.warning.severity == severity && e.warning.message == message)
        return;
    e.warning.severity = severity;
    e.warning.message = message;
    Q_EMIT changed();
}

void HealthWarnings::show(const QString &code)
{
    auto it = m_entries.find(code);
    if (it == m_entries.end() || it->second.shown)
        return;
    it->second.shown = true;
    if (it->second.timer) // called from its own timeout: deleted once that returns
        it->second.timer.release()->deleteLater();
    Q_EMIT changed();
}

void HealthWarnings::clear(const QString &code)
{
    auto it = m_entries.find(code);
    if (it == m_entries.end())
        return;
    const bool wasShown = it->second.shown;
    m_entries.erase(it);
    if (wasShown)
        Q_EMIT changed();
}

void HealthWarnings::clearAll()
{
    const bool anyShown
        = std::any_of(m_entries.cbegin(), m_entries.cend(), [](const auto &e) { return e.second.shown; });
    m_entries.clear();
    if (anyShown)
        Q_EMIT changed();
}

QList<HealthWarning> HealthWarnings::visible() const
{
    QList<HealthWarning> out;
    for (const auto &[code, e] : m_entries) {
        if (e.shown)
            out.append(e.warning);
    }
    std::sort(out.begin(), out.end(), [](const HealthWarning &a, const HealthWarning &b) {
        return a.since != b.since ? a.since < b.since : a.code < b.code;
    });
    return out;
}

QJsonArray HealthWarnings::toJson() const
{
    QJsonArray a;
    for (const HealthWarning &w : visible())
        a.append(QJsonObject {{QStringLiteral("code"), w.code}, {QStringLiteral("severity"), healthSeverityName(w.severity)},
            {QStringLiteral("message"), w.message}, {QStringLiteral("since"), w.since.toString(Qt::ISODate)}});
    return a;
}

} // namespace isolation
