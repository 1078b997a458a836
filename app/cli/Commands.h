#pragma once

#include <string>
#include <vector>

// Sub-commands of stepscope-cli. Each takes the arguments after its own name and returns the
// process exit code (0 ok, 1 failure with a message on stderr, 2 usage error).
namespace stepscope::cli {

int runInfo(const std::vector<std::string>& args);     // info PATH [--json]
int runGenerate(const std::vector<std::string>& args); // generate --events N --hosts H --out LOGDIR
int runExport(const std::vector<std::string>& args);   // export TOOL PATH --csv|--json OUT
int runBenchLoad(
    const std::vector<std::string>& args); // bench load [--events-list 1000000,10000000]
int runBenchStats(const std::vector<std::string>& args);    // bench stats
int runBenchOverview(const std::vector<std::string>& args); // bench overview
int runCapture(const std::vector<std::string>& args);       // capture --service ADDR --logdir DIR
int runConvert(const std::vector<std::string>& args);       // convert PATH [--to F] OUT
int runBenchKineto(const std::vector<std::string>& args);   // bench kineto
int runBenchDiff(const std::vector<std::string>& args);     // bench diff
int runBenchReopen(const std::vector<std::string>& args);   // bench reopen
int runBenchCapture(const std::vector<std::string>& args);  // bench capture
int runCache(const std::vector<std::string>& args);         // cache info|clear
int runDiff(const std::vector<std::string>& args);          // diff BASE CANDIDATE --csv|--json OUT
#ifdef STEPSCOPE_GUI
// The benchmarks that paint (Qt; the GUI build only).
int runBenchTimeline(const std::vector<std::string>& args); // bench timeline
int runBenchMemory(const std::vector<std::string>& args);   // bench memory
#endif

} // namespace stepscope::cli
