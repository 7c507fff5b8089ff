#include "transferrate.h"

namespace isolation {

void TransferRate::add(qint64 nowMs, qint64 bytes)
{
    m_samples.emplace_back(nowMs, bytes);
    while (m_samples.size() > 2 && nowMs - m_samples.front().first > kWindowMs)
        m_samples.pop_front();
}

double TransferRate::bytesPerSecond() const
{
    if (m_samples.size() < 2)
        return -1;
    const auto &[firstMs, firstBytes] = m_samples.front();
    const auto &[lastMs, lastBytes] = m_samples.back();
    if (lastMs - firstMs < 200 || lastBytes < firstBytes)
        return -1;
    return double(lastBytes - firstBytes) * 1000.0 / double(lastMs - firstMs);
}

qint64 TransferRate::secondsLeft(qint64 bytes, qint64 totalBytes) const
{
    const double rate = bytesPerSecond();
    if (rate <= 0 || totalBytes <= bytes)
        return -1;
    return qint64(double(totalBytes - bytes) / rate + 0.999);
}

} // namespace isolation
