// One engine per state directory: an advisory lock file held for the engine's lifetime.
// A lock left by a process that died is taken over; a live owner is named in the error.
#pragma once

#include "result.h"

#include <QLockFile>

#include <memory>

namespace isolation {

class InstanceLock
{
public:
    explicit InstanceLock(const QString &lockFile);
    ~InstanceLock();

    // Fails when another live process holds the lock; the message names its pid.
    Status acquire();
    void release();
    bool held() const;

private:
    std::unique_ptr<QLockFile> m_lock;
};

} // namespace isolation
