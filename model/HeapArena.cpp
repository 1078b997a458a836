#include "model/HeapArena.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace stepscope {

void useOneHeapArena() {
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, 1);
#endif
}

} // namespace stepscope
