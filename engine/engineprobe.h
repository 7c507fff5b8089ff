// Tests' way to the engine's modules. The Engine facade offers commands and typed snapshots (its
// LocalAPI says the same to the tray and the CLI) and hands out none of its modules; an in-process
// test that must reach one (a test-only RPC method on the tunnel, the runtime's engine id) does so
// here, by name, so that `git grep EngineProbe` lists every place that goes past the facade.
// Only tests include this (tests/build/check_engine_modules.py refuses it anywhere in engine/ or app/).
#pragma once

#include "engine.h"

namespace isolation {

struct EngineProbe
{
    static TunnelClient *tunnel(const Engine &e) { return e.tunnel(); }
    static RuntimeManager *runtime(const Engine &e) { return e.runtime(); }
    static SessionManager *sessions(const Engine &e) { return e.sessions(); }
    static SessionSandboxes *sandboxes(const Engine &e) { return e.sandboxes(); }
};

} // namespace isolation
