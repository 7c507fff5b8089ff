// Time as an injected dependency, so backoff, heartbeats and expiry can be tested on a fake clock.
#pragma once

#include <QtGlobal>

#include <chrono>

namespace isolation {

class Clock
{
public:
    virtual ~Clock() = default;
    // Monotonic milliseconds; only differences are meaningful.
    virtual qint64 monotonicMs() const = 0;
    // Wall-clock seconds since the Unix epoch (token expiry, log stamps).
    virtual qint64 unixSeconds() const = 0;
};

class SystemClock final : public Clock
{
public:
    qint64 monotonicMs() const override;
    qint64 unixSeconds() const override;
};

// A clock that moves only when told to.
class ManualClock final : public Clock
{
public:
    explicit ManualClock(qint64 unixSeconds = 1'700'000'000)
        : m_unix(unixSeconds)
    { }
    qint64 monotonicMs() const override { return m_mono; }
    qint64 unixSeconds() const override { return m_unix + m_mono / 1000; }
    void advance(std::chrono::milliseconds d) { m_mono += d.count(); }

private:
    qint64 m_unix;
    qint64 m_mono = 0;
};

} // namespace isolation
