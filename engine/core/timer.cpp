#include "timer.h"

namespace isolation {

SystemTimer::SystemTimer()
{
    m_timer.setSingleShot(true);
    QObject::connect(&m_timer, &QTimer::timeout, [this] {
        // The callback may restart the timer, so take it out first.
        auto callback = std::move(m_onTimeout);
        m_onTimeout = {};
        if (callback)
            callback();
    });
}

void SystemTimer::start(std::chrono::milliseconds delay, std::function<void()> onTimeout)
{
    m_onTimeout = std::move(onTimeout);
    m_timer.start(delay);
}

void SystemTimer::stop()
{
    m_timer.stop();
    m_onTimeout = {};
}

void ManualTimer::start(std::chrono::milliseconds delay, std::function<void()> onTimeout)
{
    m_active = true;
    ++m_starts;
    m_delay = delay;
    m_onTimeout = std::move(onTimeout);
}

void ManualTimer::stop()
{
    m_active = false;
    m_onTimeout = {};
}

bool ManualTimer::fire()
{
    if (!m_active)
        return false;
    m_active = false;
    auto callback = std::move(m_onTimeout);
    m_onTimeout = {};
    if (callback)
        callback();
    return true;
}

} // namespace isolation
