// stepscope-cli: the analyses of the GUI, headless, plus the synthetic generator and the headless
// benchmarks (bench/). No Qt here: the capture-only build (-DSTEPSCOPE_GUI=OFF) has none; the
// benchmarks that paint are in stepscope-bench.

#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "bench/Benches.h"
#include "model/HeapArena.h"

namespace {

constexpr const char* kVersion = STEPSCOPE_VERSION; // project(Stepscope VERSION ...) in CMake

constexpr const char* kUsage =
    "usage: stepscope-cli COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  info PATH [--json] [--no-cache]\n"
    "                                 hosts, planes, tracks, event counts of a profile\n"
    "  generate --out LOGDIR [--events N] [--hosts H] [--gpus G] [--seed S] [--run NAME]\n"
    "                                 write a synthetic profile as a TensorBoard log directory\n"
    "  export TOOL PATH (--csv OUT | --json OUT) [OPTIONS]\n"
    "                                 write what a tool shows (see export --help)\n"
    "  diff BASE CANDIDATE (--csv OUT | --json OUT) [--steps A:B] [--by "
    "op|kernel|category|host_op]\n"
    "                                 compare two runs step by step (see diff --help)\n"
    "  capture --service ADDR[,ADDR..] --logdir DIR [--duration-ms N] [OPTIONS]\n"
    "                                 profile running TensorFlow/JAX jobs (see capture --help)\n"
    "  capture --logdir DIR [OPTIONS] -- PROGRAM [ARGS..]\n"
    "                                 profile a CUDA program with CUPTI (see capture --help)\n"
    "  capture --records FILE.rec.. --logdir DIR [--run NAME]\n"
    "                                 turn record files from a GPU server into a run\n"
    "  bench NAME [OPTIONS]           the headless benchmarks (see bench --help); those that\n"
    "                                 paint with Qt run in stepscope-bench\n"
    "  cache (info | clear) [--dir DIR]\n"
    "                                 the profile cache: its size, or empty it\n"
    "  convert PATH [--to chrome-json] [--no-cache] OUT.json[.gz]\n"
    "                                 write a profile as Chrome trace JSON (Perfetto)\n"
    "\n"
    "PATH is a TensorBoard log directory, LOGDIR/plugins/profile, one run folder, one\n"
    ".xplane.pb file or one PyTorch/Chrome trace .json[.gz]. info, export and convert\n"
    "reuse the profile cache (see cache); --no-cache bypasses it. Options: --help, --version.\n";

int usageError(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli: %s\n\n%s", message.c_str(), kUsage);
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    stepscope::useOneHeapArena();
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) return usageError("no command given");
    const std::string& command = args[0];
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (command == "--version") {
        std::printf("stepscope-cli %s\n", kVersion);
        return 0;
    }

    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "info") return stepscope::cli::runInfo(rest);
    if (command == "generate") return stepscope::cli::runGenerate(rest);
    if (command == "export") return stepscope::cli::runExport(rest);
    if (command == "capture") return stepscope::cli::runCapture(rest);
    if (command == "convert") return stepscope::cli::runConvert(rest);
    if (command == "cache") return stepscope::cli::runCache(rest);
    if (command == "diff") return stepscope::cli::runDiff(rest);
    if (command == "bench") return stepscope::bench::runBench("stepscope-cli bench", rest, nullptr);
    return usageError("unknown command '" + command + "'");
}
