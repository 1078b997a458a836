// stepscope-bench: every benchmark, the painting ones (timeline, memory) included; the GUI build
// only. stepscope-cli runs the headless ones as `stepscope-cli bench NAME`; the same NAME and
// options work here (docs/performance.md).

#include <string>
#include <vector>

#include "bench/PaintingBenches.h"
#include "model/HeapArena.h"

int main(int argc, char** argv) {
    stepscope::useOneHeapArena(); // as stepscope-cli, so the load benches measure the same
    const std::vector<std::string> args(argv + 1, argv + argc);
    return stepscope::bench::runBench("stepscope-bench", args, stepscope::bench::paintingBench);
}
