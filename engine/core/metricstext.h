// Metrics in the Prometheus text exposition format, version 0.0.4 (what `GET /metrics` answers):
// families written one after the other, each with its HELP and TYPE lines, then its samples.
// Counters, gauges and histograms with cumulative `le` buckets; label values escaped as the format
// says (backslash, double quote, line feed). A writer only: the tests read it back with the
// Prometheus project's own parser (python3-prometheus-client).
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <vector>

namespace isolation {

using MetricLabels = QList<QPair<QByteArray, QString>>;

// Observations counted into fixed buckets (upper bounds, ascending; +Inf is implicit).
class Histogram
{
public:
    explicit Histogram(std::vector<double> bounds);

    void observe(double value);
    const std::vector<double> &bounds() const { return m_bounds; }
    const std::vector<quint64> &counts() const { return m_counts; } // per bucket, not cumulative
    quint64 count() const { return m_count; }
    double sum() const { return m_sum; }

private:
    std::vector<double> m_bounds;
    std::vector<quint64> m_counts; // one per bound, then one for +Inf
    quint64 m_count = 0;
    double m_sum = 0;
};

class MetricsText
{
public:
    enum class Type { Counter, Gauge, Histogram };

    // Starts a family: `name` matches [a-zA-Z_:][a-zA-Z0-9_:]* (counters end in _total).
    void family(const QByteArray &name, Type type, const QString &help);
    void sample(const QByteArray &name, double value, const MetricLabels &labels = {});
    void histogram(const QByteArray &name, const Histogram &h, const MetricLabels &labels = {});

    const QByteArray &text() const { return m_text; }
    static constexpr const char *ContentType = "text/plain; version=0.0.4; charset=utf-8";

private:
    QByteArray m_text;
};

} // namespace isolation
