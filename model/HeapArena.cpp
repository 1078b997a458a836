#include "model/HeapArena.h"

// Before any test of __GLIBC__: the C library defines it (features.h), and only a standard
// header brings it in. Tested first, the settings below were silently compiled out.
#include <mutex>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace stepscope {

void useOneHeapArena() {
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 1);
#endif
}

void returnFreedHeap() {
#ifdef __GLIBC__
    static std::mutex turns;
    const std::lock_guard<std::mutex> lock(turns);
    malloc_trim(0);
#endif
}

} // namespace stepscope
