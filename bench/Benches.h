#pragma once

#include <string>
#include <string_view>
#include <vector>

// The benchmarks: the headless ones (Qt-free, this library: stepscope-cli and stepscope-bench run
// them) and the ones that paint with Qt (bench/PaintingBenches.h: stepscope-bench only, in the
// GUI build). docs/performance.md holds what they measure.
namespace stepscope::bench {

// A benchmark's entry point: the arguments after its name; the exit code (0 ok, 1 failure with a
// message on stderr, 2 usage error).
using BenchMain = int (*)(const std::vector<std::string>& args);

int runBenchLoad(const std::vector<std::string>& args);     // load [--events-list N,N,..]
int runBenchStats(const std::vector<std::string>& args);    // stats
int runBenchOverview(const std::vector<std::string>& args); // overview
int runBenchKineto(const std::vector<std::string>& args);   // kineto
int runBenchDiff(const std::vector<std::string>& args);     // diff
int runBenchReopen(const std::vector<std::string>& args);   // reopen
int runBenchCapture(const std::vector<std::string>& args);  // capture

struct Bench {
    std::string_view name;
    std::string_view options; // as the help lists them ("" for none)
    std::string_view about;   // what it measures, as the help says it
    BenchMain run;            // null for a benchmark that paints: stepscope-bench runs those
};

// Every benchmark, in the order the help lists them.
const std::vector<Bench>& benches();

// The help: `usage` as its first line, the benchmarks this program runs, and (withPainting
// false) those only stepscope-bench runs.
std::string benchHelp(std::string_view usage, bool withPainting);

// `COMMAND NAME [ARGS..]` (COMMAND: "stepscope-cli bench" or "stepscope-bench"): runs benchmark
// NAME with ARGS. A benchmark that paints runs through `painting` (stepscope-bench's); where that
// is null (stepscope-cli) it prints a line naming `stepscope-bench NAME` and returns 1. No NAME,
// or an unknown one: the help on stderr, 2; --help: the help on stdout, 0.
int runBench(std::string_view command, const std::vector<std::string>& args,
             BenchMain (*painting)(std::string_view name));

} // namespace stepscope::bench
