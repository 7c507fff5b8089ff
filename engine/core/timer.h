// A one-shot timer as an injected dependency, so tests can fire reconnects and expiries
// themselves instead of waiting for them (pairs with Clock).
#pragma once

#include <QTimer>

#include <chrono>
#include <functional>

namespace isolation {

class Timer
{
public:
    virtual ~Timer() = default;
    // (Re)starts the timer; `onTimeout` runs once on the owner's event loop after `delay`.
    virtual void start(std::chrono::milliseconds delay, std::function<void()> onTimeout) = 0;
    virtual void stop() = 0;
    virtual bool isActive() const = 0;
};

// A QTimer underneath: real time.
class SystemTimer final : public Timer
{
public:
    SystemTimer();
    void start(std::chrono::milliseconds delay, std::function<void()> onTimeout) override;
    void stop() override;
    bool isActive() const override { return m_timer.isActive(); }

private:
    QTimer m_timer;
    std::function<void()> m_onTimeout;
};

// Fires only when the test says so; remembers the delay it was started with.
class ManualTimer final : public Timer
{
public:
    void start(std::chrono::milliseconds delay, std::function<void()> onTimeout) override;
    void stop() override;
    bool isActive() const override { return m_active; }

    std::chrono::milliseconds delay() const { return m_delay; }
    int starts() const { return m_starts; }
    // Runs the pending callback as if the delay had passed; false when nothing is pending.
    bool fire();

private:
    bool m_active = false;
    int m_starts = 0;
    std::chrono::milliseconds m_delay {0};
    std::function<void()> m_onTimeout;
};

} // namespace isolation
