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
// glibc. Safe to call from several threads at once: the calls take turns. glibc sets its heap up
// lazily and not thread-safely, and where another allocator serves malloc (a sanitizer's, or one
// in LD_PRELOAD) malloc_trim is the first call that reaches glibc's heap, so two loads finishing
// together would both set it up and break its count of the threads that use it: glibc then aborts
// when the second of them exits.
void returnFreedHeap();

} // namespace stepscope
