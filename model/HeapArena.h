#pragma once

namespace stepscope {

// One heap arena for every thread; each program (GUI, CLI, benchmarks) calls it first thing in
// main(). The parallel loader's workers allocate and free hundreds of MB; glibc gives each thread
// an arena of its own and keeps what is freed there (about 25 bytes per event loaded, growing
// with each reload), where the one shared arena returns it to the system after a load (the loader
// calls malloc_trim). The workers allocate rarely, so sharing costs nothing measurable (bench
// load: same CPU time). Nothing outside glibc.
void useOneHeapArena();

} // namespace stepscope
