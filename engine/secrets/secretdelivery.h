// Delivery of a vault's secrets into a running sandbox at run time, through execd: as files in a
// tmpfs directory of the sandbox (checked to be tmpfs before anything is written), one file per
// secret, mode 0400. The other route, the environment of each process execd starts, is
// SecretVault::environment() in a CommandRequest. Neither passes through the container's
// creation config, which Docker writes to disk.
#pragma once

#include "core/result.h"

#include <QString>

#include <functional>

namespace isolation {

class ExecdClient;
class SecretVault;

class SecretDelivery
{
public:
    static constexpr const char *kDefaultDirectory = "/dev/shm/isolation-secrets";

    // Writes every secret of `vault` to `directory`/NAME (replacing what an earlier delivery left
    // there). `directory` must be absolute, made of [A-Za-z0-9/._-], and its parent must be on a
    // tmpfs inside the sandbox; otherwise nothing is written and `done` gets InvalidInput (a bad
    // name) or Failed (not tmpfs). Unavailable: execd did not answer. The values are copied when
    // this is called; `done` runs once, later, on the caller's thread.
    static void deliverFiles(
        ExecdClient *execd, const SecretVault &vault, const QString &directory, std::function<void(Status)> done);

    static bool isValidDirectory(const QString &directory);
};

} // namespace isolation
