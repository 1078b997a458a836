#pragma once

#include <string>
#include <vector>

// Sub-commands of stepscope-cli. Each takes the arguments after its own name and returns the
// process exit code (0 ok, 1 failure with a message on stderr, 2 usage error).
namespace stepscope::cli {

int runInfo(const std::vector<std::string>& args);     // info PATH [--json]
int runGenerate(const std::vector<std::string>& args); // generate --events N --hosts H --out LOGDIR
int runExport(const std::vector<std::string>& args);   // export TOOL PATH --csv|--json OUT
int runCapture(const std::vector<std::string>& args);  // capture --service ADDR --logdir DIR
int runConvert(const std::vector<std::string>& args);  // convert PATH [--to F] OUT
int runCache(const std::vector<std::string>& args);    // cache info|clear
int runDiff(const std::vector<std::string>& args);     // diff BASE CANDIDATE --csv|--json OUT

} // namespace stepscope::cli
