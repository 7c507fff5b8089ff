// The rate of a transfer and the time it has left, from readings of its bytes done: what the CLI's
// progress line (app/server/progressline.h) and the tray's progress bar (app/tray/changespage.h)
// both show, computed once. The rate is taken over the last few seconds, so it follows a transfer
// that speeds up or slows down; a new phase starts from nothing (reset()).
#pragma once

#include <QtGlobal>

#include <deque>
#include <utility>

namespace isolation {

class TransferRate
{
public:
    static constexpr qint64 kWindowMs = 5000;

    void reset() { m_samples.clear(); }
    // `nowMs`: a monotonic clock reading; `bytes`: the bytes done so far in this phase.
    void add(qint64 nowMs, qint64 bytes);
    // Bytes a second over the last kWindowMs; -1 until two readings 200 ms apart or more.
    double bytesPerSecond() const;
    // Whole seconds left (rounded up) for `totalBytes` at the current rate; -1 when not known.
    qint64 secondsLeft(qint64 bytes, qint64 totalBytes) const;

private:
    std::deque<std::pair<qint64, qint64>> m_samples; // (ms, bytes), the last kWindowMs
};

} // namespace isolation
