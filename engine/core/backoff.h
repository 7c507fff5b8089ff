// Full-jitter exponential backoff (delay = random in [0, min(cap, base * 2^attempt)]), reset
// after a connection has stayed up long enough. Clock and randomness are injected.
#pragma once

#include "clock.h"

#include <chrono>
#include <functional>

namespace isolation {

class Backoff
{
public:
    struct Policy
    {
        std::chrono::milliseconds base {1000};
        std::chrono::milliseconds cap {30000};
        std::chrono::milliseconds resetAfter {60000};
    };

    // `random01` returns a uniform value in [0, 1); the default uses QRandomGenerator.
    Backoff(Policy policy, const Clock &clock, std::function<double()> random01 = {});

    // The delay before the next attempt; each call counts one failed attempt.
    std::chrono::milliseconds nextDelay();
    // The upper bound the next nextDelay() will draw from.
    std::chrono::milliseconds ceiling() const;

    void connected(); // a connection came up
    void disconnected(); // it went down: the attempt count resets if it was up for resetAfter
    void reset();
    int attempts() const { return m_attempts; }

private:
    Policy m_policy;
    const Clock &m_clock;
    std::function<double()> m_random;
    int m_attempts = 0;
    qint64 m_connectedAt = -1;
};

} // namespace isolation
