// stepscope-cli: the analyses of the GUI, headless, plus the synthetic generator and benchmarks.
// No Qt here: the capture-only build (-DSTEPSCOPE_GUI=OFF) has none; the painting benchmarks of
// the GUI build start their own Qt application.

#include <cstdio>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "app/cli/Commands.h"

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
    "  bench load [--events-list N,N,..] [--with-100m]\n"
    "                                 XSpace load speed and memory vs protobuf's parser\n"
    "  bench timeline                 timeline frame times\n"
    "  bench stats                    kernel and op statistics times\n"
    "  bench overview [--events N]    overview and input pipeline analysis times\n"
    "  bench memory [--events-list N,N,..]\n"
    "                                 memory profile analysis and timeline frame times\n"
    "  bench diff [--events N]        run diff vs kernel + op stats of both runs\n"
    "  bench kineto [--events-list N,N,..]\n"
    "                                 Kineto JSON load speed and memory vs a bare simdjson parse\n"
    "  bench reopen [--events-list N,N,..]\n"
    "                                 reopening from the profile cache vs loading the source\n"
    "  bench capture [--records N]    the CUPTI injection library's cost per record and per\n"
    "                                 flush, with a stand-in libcupti (no GPU needed)\n"
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
#ifdef __GLIBC__
    // One heap arena for every thread. The parallel loader's workers allocate and free hundreds
    // of MB; glibc gives each thread an arena of its own and keeps what is freed there (about
    // 25 bytes per event loaded, growing with each reload), where the one shared arena returns
    // it to the system after a load (the loader calls malloc_trim). The workers allocate rarely,
    // so sharing costs nothing measurable (bench load: same CPU time).
    mallopt(M_ARENA_MAX, 1);
#endif
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
    if (command == "bench") {
        if (rest.empty())
            return usageError("bench needs one of: load, timeline, stats, memory, kineto, "
                              "overview, diff, reopen, capture");
        const std::vector<std::string> benchArgs(rest.begin() + 1, rest.end());
        if (rest[0] == "load") return stepscope::cli::runBenchLoad(benchArgs);
        if (rest[0] == "stats") return stepscope::cli::runBenchStats(benchArgs);
        if (rest[0] == "kineto") return stepscope::cli::runBenchKineto(benchArgs);
#ifdef STEPSCOPE_GUI
        if (rest[0] == "timeline") return stepscope::cli::runBenchTimeline(benchArgs);
        if (rest[0] == "memory") return stepscope::cli::runBenchMemory(benchArgs);
#else
        if (rest[0] == "timeline" || rest[0] == "memory") {
            std::fprintf(stderr,
                         "stepscope-cli: bench %s paints with Qt and is not in this capture-only "
                         "build (-DSTEPSCOPE_GUI=OFF)\n",
                         rest[0].c_str());
            return 1;
        }
#endif
        if (rest[0] == "overview") return stepscope::cli::runBenchOverview(benchArgs);
        if (rest[0] == "diff") return stepscope::cli::runBenchDiff(benchArgs);
        if (rest[0] == "reopen") return stepscope::cli::runBenchReopen(benchArgs);
        if (rest[0] == "capture") return stepscope::cli::runBenchCapture(benchArgs);
        return usageError("unknown benchmark '" + rest[0] +
                          "' (load, timeline, stats, memory, kineto, overview, diff, reopen, "
                          "capture)");
    }
    return usageError("unknown command '" + command + "'");
}
