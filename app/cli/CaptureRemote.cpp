// `stepscope-cli capture --service ADDR[,ADDR...] --logdir DIR [...]`: remote capture from
// running TensorFlow / JAX profiler servers (capture/RemoteCapture, gRPC; the GUI build only).

#include <cstdio>
#include <string>

#include "app/cli/CaptureCommand.h"
#include "capture/RemoteCapture.h"
#include "model/CountText.h"

namespace stepscope::cli {

int runRemoteCapture(const std::vector<std::string>& args) {
    capture::RemoteCaptureOptions o;
    std::string services;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (i + 1 >= args.size()) return captureUsage("'" + a + "' needs a value or is unknown");
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
            if (!n)
                return captureUsage(
                    "--duration-ms must be a whole number of ms from 1 to 86400000");
            o.durationMs = *n;
        } else if (a == "--delay-ms") {
            const auto n = number(0, 24ull * 3600 * 1000);
            if (!n)
                return captureUsage("--delay-ms must be a whole number of ms from 0 to 86400000");
            o.delayMs = *n;
        } else if (a == "--retries") {
            const auto n = number(0, 100);
            if (!n) return captureUsage("--retries must be 0 to 100");
            o.retries = uint32_t(*n);
        } else if (a == "--host-tracer-level") {
            const auto n = number(0, 3);
            if (!n) return captureUsage("--host-tracer-level must be 0 to 3");
            o.hostTracerLevel = uint32_t(*n);
        } else if (a == "--device-tracer-level") {
            const auto n = number(0, 1);
            if (!n) return captureUsage("--device-tracer-level must be 0 or 1");
            o.deviceTracerLevel = uint32_t(*n);
        } else if (a == "--python-tracer-level") {
            const auto n = number(0, 1);
            if (!n) return captureUsage("--python-tracer-level must be 0 or 1");
            o.pythonTracerLevel = uint32_t(*n);
        } else {
            return captureUsage("unknown option '" + a + "'");
        }
    }
    if (services.empty()) return captureUsage("no --service given");
    if (o.logDir.empty()) return captureUsage("no --logdir given");
    if (std::string error = capture::parseServiceAddresses(services, o.addresses); !error.empty())
        return captureUsage(error);
    if (std::string error = capture::validateOptions(o); !error.empty()) return captureUsage(error);

    Progress progress(stagesOnStderr());
    const capture::RemoteCaptureResult r = [&] {
        const CancelOnInterrupt interrupt(progress);
        return capture::captureRemote(o, progress);
    }();

    if (r.cancelled) {
        for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
        std::fputs("stepscope-cli capture: cancelled\n", stderr);
        return 130;
    }
    return reportCapture(r.warnings, r.ok(), r.error, r.files);
}

} // namespace stepscope::cli
