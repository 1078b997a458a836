#pragma once

namespace stepscope {

// One heap arena for every thread; each program (GUI, CLI, benchmarks) calls it first thing in
// main(). The parallel loader's workers allocate and free hundreds of MB; glibc gives each thread
// an arena of its own and keeps what is freed there (about 25 bytes per event loaded, growing
// with each reload), where the one shared arena returns it to the system after a load
// (returnFreedHeap). The workers allocate rarely, so sharing costs nothing measurable (bench
// load: same CPU time). Nothing outside glibc.
void useOneHeapArena();

// Gives the heap memory freed so far back to the system (glibc's malloc_trim); nothing outside
// glibc. Safe to call from several threads at once: the calls take turns. Where glibc's malloc is
// not the one serving the process (AddressSanitizer's allocator serves it in the sanitizer build),
// malloc_trim can be the first call that reaches glibc's heap and so sets it up, which glibc does
// without a lock: a second call meanwhile trims a heap still being set up
// (a crash inside malloc_trim) or sets it up again (glibc's assertion at thread exit). Pod
// viewer's loads of several hosts finish together and call this at the same time.
void returnFreedHeap();

} // namespace stepscope
