// `stepscope-cli capture --service ADDR[,ADDR...] --logdir DIR [...]`: remote capture from
// running TensorFlow / JAX profiler servers into a TensorBoard log directory (capture/).
// Prints the written files, one per line; progress and warnings go to stderr. Ctrl+C cancels.

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>

#include "app/cli/Arguments.h"
#include "app/cli/Commands.h"
#include "capture/ProgramLauncher.h"
#include "capture/RemoteCapture.h"

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
    "folder they can reach under the same path.\n"
    "\n"
    "       stepscope-cli capture --logdir DIR [--run NAME] [--duration S]\n"
    "           [--kernels] [--memcpy] [--memory] [--api] [--nvtx] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM with Stepscope's CUPTI collector injected (all record kinds unless some are\n"
    "named), stops it after S seconds if given, and writes one host per process:\n"
    "DIR/plugins/profile/RUN/<hostname>_<pid>.xplane.pb. Needs a CUDA driver and a build that\n"
    "found CUPTI.\n";

int usage(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli capture: %s\n\n%s", message.c_str(), kCaptureUsage);
    return 2;
}

// Ctrl+C cancels the capture: the servers see the calls cancelled and stop profiling.
Progress* g_interruptible = nullptr;
extern "C" void onInterrupt(int) {
    if (g_interruptible) g_interruptible->cancel();
}

} // namespace

// `capture --logdir DIR [--run NAME] [--duration S] [--kernels --memcpy --memory --api --nvtx]
// -- PROGRAM ARGS...`: local capture with CUPTI.
static int runLocalCapture(const std::vector<std::string>& args, size_t programAt) {
    capture::LaunchOptions o;
#ifdef STEPSCOPE_CUPTI_LIBRARY
    o.injectionLibrary = STEPSCOPE_CUPTI_LIBRARY;
    o.cuptiLibrary = STEPSCOPE_LIBCUPTI;
#endif
    std::string kinds;
    for (size_t i = 0; i + 1 < programAt; ++i) {
        const std::string& a = args[i];
        if (a == "--kernels" || a == "--memcpy" || a == "--memory" || a == "--api" ||
            a == "--nvtx") {
            kinds += (kinds.empty() ? "" : ",") + a.substr(2);
            continue;
        }
        if (i + 2 >= programAt) return usage("'" + a + "' needs a value or is unknown");
        const std::string& v = args[++i];
        if (a == "--logdir") {
            o.logDir = v;
        } else if (a == "--run") {
            o.runName = v;
        } else if (a == "--duration") {
            const auto n = parseCount(v, 1, 24 * 3600);
            if (!n) return usage("--duration must be a whole number of seconds, 1 to 86400");
            o.stopAfterMs = *n * 1000;
        } else {
            return usage("unknown option '" + a + "' for launching a program");
        }
    }
    o.kinds = kinds;
    o.argv.assign(args.begin() + long(programAt), args.end());
    if (o.argv.empty()) return usage("no program after --");
    if (o.logDir.empty()) return usage("no --logdir given");

    Progress progress;
    g_interruptible = &progress;
    std::signal(SIGINT, onInterrupt);
    const capture::LaunchResult r = capture::launchAndCapture(o, progress);
    std::signal(SIGINT, SIG_DFL);
    g_interruptible = nullptr;
    for (const std::string& n : r.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    for (const std::string& w : r.run.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!r.ok()) {
        std::fprintf(stderr, "stepscope-cli capture: %s\n", r.error.c_str());
        return 1;
    }
    for (const std::string& f : r.run.files) std::printf("%s\n", f.c_str());
    return 0;
}

int runCapture(const std::vector<std::string>& args) {
    const auto dashes = std::find(args.begin(), args.end(), "--");
    if (dashes != args.end()) return runLocalCapture(args, size_t(dashes - args.begin()) + 1);
    capture::RemoteCaptureOptions o;
    std::string services;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kCaptureUsage, stdout);
            return 0;
        }
        if (i + 1 >= args.size()) return usage("'" + a + "' needs a value or is unknown");
        const std::string& v = args[++i];
        const auto number = [&](uint64_t min, uint64_t max) { return parseCount(v, min, max); };
        if (a == "--service") {
            services = v;
        } else if (a == "--logdir") {
            o.logDir = v;
        } else if (a == "--run") {
            o.runName = v;
        } else if (a == "--duration-ms") {
            const auto n = number(1, 24ull * 3600 * 1000);
            if (!n) return usage("--duration-ms must be a whole number of ms from 1 to 86400000");
            o.durationMs = *n;
        } else if (a == "--delay-ms") {
            const auto n = number(0, 24ull * 3600 * 1000);
            if (!n) return usage("--delay-ms must be a whole number of ms from 0 to 86400000");
            o.delayMs = *n;
        } else if (a == "--retries") {
            const auto n = number(0, 100);
            if (!n) return usage("--retries must be 0 to 100");
            o.retries = uint32_t(*n);
        } else if (a == "--host-tracer-level") {
            const auto n = number(0, 3);
            if (!n) return usage("--host-tracer-level must be 0 to 3");
            o.hostTracerLevel = uint32_t(*n);
        } else if (a == "--device-tracer-level") {
            const auto n = number(0, 1);
            if (!n) return usage("--device-tracer-level must be 0 or 1");
            o.deviceTracerLevel = uint32_t(*n);
        } else if (a == "--python-tracer-level") {
            const auto n = number(0, 1);
            if (!n) return usage("--python-tracer-level must be 0 or 1");
            o.pythonTracerLevel = uint32_t(*n);
        } else {
            return usage("unknown option '" + a + "'");
        }
    }
    if (services.empty()) return usage("no --service given");
    if (o.logDir.empty()) return usage("no --logdir given");
    if (std::string error = capture::parseServiceAddresses(services, o.addresses); !error.empty())
        return usage(error);
    if (std::string error = capture::validateOptions(o); !error.empty()) return usage(error);

    std::string lastStage;
    Progress progress([&lastStage](std::string_view stage, double) {
        if (stage == lastStage) return;
        lastStage = stage;
        std::fprintf(stderr, "%.*s\n", int(stage.size()), stage.data());
    });
    g_interruptible = &progress;
    std::signal(SIGINT, onInterrupt);
    const capture::RemoteCaptureResult r = capture::captureRemote(o, progress);
    std::signal(SIGINT, SIG_DFL);
    g_interruptible = nullptr;

    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (r.cancelled) {
        std::fputs("stepscope-cli capture: cancelled\n", stderr);
        return 130;
    }
    if (!r.ok()) {
        std::fprintf(stderr, "stepscope-cli capture: %s\n", r.error.c_str());
        return 1;
    }
    for (const std::string& f : r.files) std::printf("%s\n", f.c_str());
    return 0;
}

} // namespace stepscope::cli
