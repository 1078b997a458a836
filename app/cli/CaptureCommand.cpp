// `stepscope-cli capture`: remote capture from running TensorFlow / JAX profiler servers, local
// capture of a program with CUPTI, or record files from another machine, each into a TensorBoard
// log directory. Prints the written files, one per line; progress and warnings go to stderr.
// Ctrl+C cancels.

#include "app/cli/CaptureCommand.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>

#include "app/cli/Commands.h"

namespace stepscope::cli {

namespace {

constexpr const char* kCaptureUsage =
    "usage: stepscope-cli capture --service ADDR[,ADDR...] --logdir DIR [--duration-ms N]\n"
    "           [--retries N] [--delay-ms N] [--host-tracer-level 0-3]\n"
    "           [--device-tracer-level 0-1] [--python-tracer-level 0-1] [--run NAME]\n"
    "\n"
    "Profiles running TensorFlow / JAX jobs that started a profiler server\n"
    "(tf.profiler.experimental.server.start(PORT), jax.profiler.start_server(PORT)), all\n"
    "services in parallel into one run: DIR/plugins/profile/RUN/<host>_<port>.xplane.pb.\n"
    "Defaults as TensorBoard's Capture Profile: --duration-ms 1000 --retries 3 --delay-ms 0\n"
    "--host-tracer-level 2 --device-tracer-level 1 --python-tracer-level 0; RUN is the local\n"
    "time (YYYY_MM_DD_HH_MM_SS). The servers write the files themselves, so DIR must be a\n"
    "folder they can reach under the same path. (Not in the capture-only build.)\n"
    "\n"
    "       stepscope-cli capture --logdir DIR [--run NAME] [--delay S] [--duration S]\n"
    "           [--kernels] [--memcpy] [--memory] [--api] [--all-api] [--nvtx]\n"
    "           -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM with Stepscope's CUPTI collector injected (all record kinds unless some are\n"
    "named; --api records the runtime calls but queries and the driver calls that launch, copy,\n"
    "allocate or synchronise, --all-api every API call), records from --delay seconds after it\n"
    "starts, stops it after --duration seconds of recording if given, prints what was recorded\n"
    "so far once a second on stderr, and writes one host per process:\n"
    "DIR/plugins/profile/RUN/<hostname>_<pid>.xplane.pb. Needs a CUDA driver and a build that\n"
    "found CUPTI.\n"
    "\n"
    "       stepscope-cli capture --records FILE.rec [FILE.rec...] --logdir DIR [--run NAME]\n"
    "\n"
    "Converts record files that the collector wrote elsewhere (STEPSCOPE_CUPTI_DIR on a GPU\n"
    "server) into a run, as a capture does when its program ends.\n";

// Ctrl+C cancels the capture: the servers see the calls cancelled and stop profiling; a launched
// program is stopped.
Progress* g_interruptible = nullptr;
extern "C" void onInterrupt(int) {
    if (g_interruptible) g_interruptible->cancel();
}

} // namespace

int captureUsage(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli capture: %s\n\n%s", message.c_str(), kCaptureUsage);
    return 2;
}

int reportCapture(const std::vector<std::string>& warnings, bool ok, const std::string& error,
                  const std::vector<std::string>& files) {
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!ok) {
        std::fprintf(stderr, "stepscope-cli capture: %s\n", error.c_str());
        return 1;
    }
    for (const std::string& f : files) std::printf("%s\n", f.c_str());
    return 0;
}

Progress::Callback stagesOnStderr() {
    return [lastStage = std::string()](std::string_view stage, double) mutable {
        if (stage == lastStage) return;
        lastStage = stage;
        std::fprintf(stderr, "%.*s\n", int(stage.size()), stage.data());
    };
}

CancelOnInterrupt::CancelOnInterrupt(Progress& progress) {
    g_interruptible = &progress;
    std::signal(SIGINT, onInterrupt);
}

CancelOnInterrupt::~CancelOnInterrupt() {
    std::signal(SIGINT, SIG_DFL);
    g_interruptible = nullptr;
}

int runCapture(const std::vector<std::string>& args) {
    const auto dashes = std::find(args.begin(), args.end(), "--");
    if (dashes != args.end()) return runProgramCapture(args, size_t(dashes - args.begin()) + 1);
    if (std::find(args.begin(), args.end(), "--help") != args.end() ||
        std::find(args.begin(), args.end(), "-h") != args.end()) {
        std::fputs(kCaptureUsage, stdout);
        return 0;
    }
    if (std::find(args.begin(), args.end(), "--records") != args.end())
        return runRecordsCapture(args);
#ifdef STEPSCOPE_REMOTE_CAPTURE
    return runRemoteCapture(args);
#else
    std::fputs("stepscope-cli capture: remote capture (--service) is not in this capture-only "
               "build (-DSTEPSCOPE_GUI=OFF: no gRPC); use --records or -- PROGRAM, or a full "
               "build\n",
               stderr);
    return 2;
#endif
}

} // namespace stepscope::cli
