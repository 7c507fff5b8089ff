// core: background threads that give way — the CPU and the disk both (spare sessions are built so).
#pragma once

namespace isolation {

// Makes the calling thread background work: the lowest CPU priority (nice 19) and the idle I/O
// class, so what a member waits for (a save, a sync, a start) runs first and the background work
// takes only what is left over. Both are per thread on Linux; the rest of the process is not
// touched. QThread::setPriority cannot do this: under the default scheduler it changes nothing.
// False when either was refused (the thread then runs as before).
bool makeThisThreadBackground();

} // namespace isolation
