#include "backoff.h"

#include <QRandomGenerator>

#include <algorithm>

namespace isolation {

Backoff::Backoff(Policy policy, const Clock &clock, std::function<double()> random01)
    : m_policy(policy)
    , m_clock(clock)
    , m_random(std::move(random01))
{
    if (!m_random)
        m_random = [] { return QRandomGenerator::global()->generateDouble(); };
}

std::chrono::milliseconds Backoff::ceiling() const
{
    // 2^attempt overflows quickly; past the cap the ceiling stays the cap.
    const int shift = std::min(m_attempts, 30);
    const long long grown = m_policy.base.count() * (1LL << shift);
    return std::chrono::milliseconds(std::min<long long>(grown, m_policy.cap.count()));
}

std::chrono::milliseconds Backoff::nextDelay()
{
    const auto top = ceiling();
    ++m_attempts;
    const double r = std::clamp(m_random(), 0.0, 1.0);
    return std::chrono::milliseconds(static_cast<long long>(r * double(top.count())));
}

void Backoff::connected()
{
    m_connectedAt = m_clock.monotonicMs();
}

void Backoff::disconnected()
{
    if (m_connectedAt >= 0 && m_clock.monotonicMs() - m_connectedAt >= m_policy.resetAfter.count())
        m_attempts = 0;
    m_connectedAt = -1;
}

void Backoff::reset()
{
    m_attempts = 0;
    m_connectedAt = -1;
}

} // namespace isolation
