#include "metricstext.h"

#include <algorithm>
#include <cmath>

namespace isolation {

namespace {

QByteArray number(double v)
{
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    if (std::isnan(v))
        return "NaN";
    // Whole numbers as integers (counters read best that way), the rest with enough digits.
    if (v == std::floor(v) && std::fabs(v) < 1e15)
        return QByteArray::number(qint64(v));
    return QByteArray::number(v, 'g', 17);
}

QByteArray escapedLabel(const QString &value)
{
    QByteArray out;
    const QByteArray utf8 = value.toUtf8();
    out.reserve(utf8.size());
    for (const char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray escapedHelp(const QString &help)
{
    QByteArray out = help.toUtf8();
    out.replace('\\', "\\\\");
    out.replace('\n', "\\n");
    return out;
}

QByteArray labelSet(const MetricLabels &labels)
{
    if (labels.isEmpty())
        return {};
    QByteArray out = "{";
    for (qsizetype i = 0; i < labels.size(); ++i) {
        if (i)
            out += ',';
        out += labels[i].first + "=\"" + escapedLabel(labels[i].second) + '"';
    }
    return out + '}';
}

} // namespace

Histogram::Histogram(std::vector<double> bounds)
    : m_bounds(std::move(bounds))
    , m_counts(m_bounds.size() + 1, 0)
{
    std::sort(m_bounds.begin(), m_bounds.end());
}

void Histogram::observe(double value)
{
    const auto it = std::lower_bound(m_bounds.begin(), m_bounds.end(), value); // le: value <= bound
    ++m_counts[size_t(it - m_bounds.begin())];
    ++m_count;
    m_sum += value;
}

void MetricsText::family(const QByteArray &name, Type type, const QString &help)
{
    static const char *const types[] = {"counter", "gauge", "histogram"};
    m_text += "# HELP " + name + ' ' + escapedHelp(help) + '\n';
    m_text += "# TYPE " + name + ' ' + types[int(type)] + '\n';
}

void MetricsText::sample(const QByteArray &name, double value, const MetricLabels &labels)
{
    m_text += name + labelSet(labels) + ' ' + number(value) + '\n';
}

void MetricsText::histogram(const QByteArray &name, const Histogram &h, const MetricLabels &labels)
{
    quint64 cumulative = 0;
    for (size_t i = 0; i <= h.bounds().size(); ++i) {
        cumulative += h.counts()[i];
        MetricLabels withLe = labels;
        withLe.append({"le", i < h.bounds().size() ? QString::fromLatin1(number(h.bounds()[i])) : QStringLiteral("+Inf")});
        sample(name + "_bucket", double(cumulative), withLe);
    }
    sample(name + "_sum", h.sum(), labels);
    sample(name + "_count", double(h.count()), labels);
}

} // namespace isolation
