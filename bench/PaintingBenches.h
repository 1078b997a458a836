#pragma once

#include <string_view>

#include "bench/Benches.h"

// The benchmarks that paint with Qt (the GUI build's stepscope-bench only): they time the
// timeline renderer and the memory timeline chart of views/.
namespace stepscope::bench {

int runBenchTimeline(const std::vector<std::string>& args); // timeline
int runBenchMemory(const std::vector<std::string>& args);   // memory

// The painting benchmark of benches() named `name` (its run is null there).
BenchMain paintingBench(std::string_view name);

} // namespace stepscope::bench
