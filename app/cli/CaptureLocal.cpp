// `stepscope-cli capture ... -- PROGRAM` and `capture --records FILE.rec...`: local CUPTI capture
// (capture/ProgramLauncher), and the conversion of record files written on another machine.

#include <cstdio>
#include <string>
#include <string_view>

#include "app/cli/CaptureCommand.h"
#include "capture/CuptiConverter.h"
#include "capture/ProgramLauncher.h"
#include "model/CountText.h"
#include "model/LogDir.h"

namespace stepscope::cli {

// `capture --logdir DIR [--run NAME] [--delay S] [--duration S] [--kernels --memcpy --memory --api
// --all-api --nvtx] -- PROGRAM ARGS...`: local capture with CUPTI.
int runProgramCapture(const std::vector<std::string>& args, size_t programAt) {
    capture::LaunchOptions o;
#ifdef STEPSCOPE_CUPTI_LIBRARY
    o.injectionLibrary = STEPSCOPE_CUPTI_LIBRARY;
#endif
    std::string kinds;
    for (size_t i = 0; i + 1 < programAt; ++i) {
        const std::string& a = args[i];
        if (a == "--kernels" || a == "--memcpy" || a == "--memory" || a == "--api" ||
            a == "--all-api" || a == "--nvtx") {
            kinds += (kinds.empty() ? "" : ",") + (a == "--all-api" ? "api-all" : a.substr(2));
            continue;
        }
        if (i + 2 >= programAt) return captureUsage("'" + a + "' needs a value or is unknown");
        const std::string& v = args[++i];
        if (a == "--logdir") {
            o.logDir = v;
        } else if (a == "--run") {
            o.runName = v;
        } else if (a == "--duration") {
            const auto n = parseCount(v, 1, 24 * 3600);
            if (!n) return captureUsage("--duration must be a whole number of seconds, 1 to 86400");
            o.stopAfterMs = *n * 1000;
        } else if (a == "--delay") {
            const auto n = parseCount(v, 0, 24 * 3600);
            if (!n) return captureUsage("--delay must be a whole number of seconds, 0 to 86400");
            o.delayMs = *n * 1000;
        } else {
            return captureUsage("unknown option '" + a + "' for launching a program");
        }
    }
    o.kinds = kinds;
    o.argv.assign(args.begin() + long(programAt), args.end());
    if (o.argv.empty()) return captureUsage("no program after --");
    if (o.logDir.empty()) return captureUsage("no --logdir given");

    // What was recorded so far, on stderr as it changes (at most once a second).
    Progress progress(stagesOnStderr());
    const capture::LaunchResult r = [&] {
        const CancelOnInterrupt interrupt(progress);
        return capture::launchAndCapture(o, progress);
    }();
    for (const std::string& n : r.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    return reportCapture(r.run.warnings, r.ok(), r.error, r.run.files);
}

// `capture --records FILE.rec... --logdir DIR [--run NAME]`: what the launcher does once its
// program has ended, for record files brought from another machine.
int runRecordsCapture(const std::vector<std::string>& args) {
    std::vector<std::string> files;
    std::string logDir, run;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--records") {
            while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
                files.push_back(args[++i]);
            continue;
        }
        if (i + 1 >= args.size()) return captureUsage("'" + a + "' needs a value or is unknown");
        const std::string& v = args[++i];
        if (a == "--logdir")
            logDir = v;
        else if (a == "--run")
            run = v;
        else
            return captureUsage("unknown option '" + a + "' for converting record files");
    }
    if (files.empty()) return captureUsage("no record file after --records");
    if (logDir.empty()) return captureUsage("no --logdir given");
    if (run.empty()) run = localTimeRunName();
    const capture::CaptureRunResult r = capture::writeCaptureRun(files, logDir, run);
    return reportCapture(r.warnings, r.ok(), r.error, r.files);
}

} // namespace stepscope::cli
