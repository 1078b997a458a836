#pragma once

namespace stepscope {

// Gives the calling thread the lowest CPU priority (nice 19), for background work that must not
// slow the views' own analyses (the cache writer). On Linux a nice value is per thread, set
// through the thread's id.
void lowerThisThreadPriority();

} // namespace stepscope
