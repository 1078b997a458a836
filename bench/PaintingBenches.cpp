#include "bench/PaintingBenches.h"

namespace stepscope::bench {

BenchMain paintingBench(std::string_view name) {
    if (name == "timeline") return runBenchTimeline;
    if (name == "memory") return runBenchMemory;
    return nullptr;
}

} // namespace stepscope::bench
