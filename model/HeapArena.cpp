#include "model/HeapArena.h"

#include <mutex>

// glibc's heap settings, where <malloc.h> declares them (M_ARENA_MAX is glibc's). Tested by what
// the header defines, not by __GLIBC__, which only comes with some other header: tested first, it
// once compiled these settings out.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace stepscope {

void useOneHeapArena() {
#ifdef M_ARENA_MAX
    mallopt(M_ARENA_MAX, 1);
#endif
}

void returnFreedHeap() {
#ifdef M_ARENA_MAX
    static std::mutex turns;
    const std::lock_guard<std::mutex> lock(turns);
    malloc_trim(0);
#endif
}

} // namespace stepscope
