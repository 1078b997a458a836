// `stepscope-cli generate`: a synthetic profile written as a TensorBoard log directory, from the
// same generator as `stepscope --demo`, the tests and the benchmarks.

#include <charconv>
#include <cstdio>
#include <optional>

#include "app/cli/Commands.h"
#include "model/CountText.h"
#include "model/LogDir.h"
#include "model/synthetic/SyntheticProfile.h"

namespace stepscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: stepscope-cli generate --out LOGDIR [--events N] [--hosts H] [--gpus G] [--seed S]\n"
    "                              [--run NAME]\n"
    "  --events N  approximate events per host (default 20000, at most 200000000)\n"
    "  --hosts H   hosts, written as worker0.xplane.pb .. (default 1)\n"
    "  --gpus G    GPUs per host (default 2)\n"
    "  --seed S    random seed; the same options give the same files (default 1)\n"
    "  --run NAME  run folder under LOGDIR/plugins/profile (default: the current time)\n";

int usage(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli generate: %s\n%s", message.c_str(), kUsage);
    return 2;
}

} // namespace

int runGenerate(const std::vector<std::string>& args) {
    SyntheticOptions options;
    int hosts = 1;
    std::string out, run;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (i + 1 >= args.size()) return usage("'" + a + "' needs a value");
        const std::string& value = args[++i];
        auto count = [&](uint64_t min, uint64_t max) { return parseCount(value, min, max); };
        if (a == "--events") {
            const auto v = count(1, kMaxSyntheticEvents);
            if (!v)
                return usage("--events must be a whole number from 1 to " +
                             std::to_string(kMaxSyntheticEvents));
            options.events = *v;
        } else if (a == "--hosts") {
            const auto v = count(1, 1024);
            if (!v) return usage("--hosts must be a whole number from 1 to 1024");
            hosts = int(*v);
        } else if (a == "--gpus") {
            const auto v = count(1, 64);
            if (!v) return usage("--gpus must be a whole number from 1 to 64");
            options.gpus = int(*v);
        } else if (a == "--seed") {
            const auto v = count(0, UINT64_MAX);
            if (!v) return usage("--seed must be a whole number");
            options.seed = *v;
        } else if (a == "--out") {
            out = value;
        } else if (a == "--run") {
            if (value.empty() || value.find('/') != std::string::npos || value == "." ||
                value == "..")
                return usage("--run must be a folder name");
            run = value;
        } else {
            return usage("unknown option '" + a + "'");
        }
    }
    if (out.empty()) return usage("--out LOGDIR is required");
    // TensorBoard names runs by their start time; newest sorts first.
    if (run.empty()) run = localTimeRunName();

    const std::string error = writeSyntheticLogDir(options, hosts, out, run);
    if (!error.empty()) {
        std::fprintf(stderr, "stepscope-cli generate: %s\n", error.c_str());
        return 1;
    }
    std::printf("wrote %s/plugins/profile/%s: %d host%s (worker0%s), about %llu events and %d "
                "GPU%s each\n",
                out.c_str(), run.c_str(), hosts, hosts == 1 ? "" : "s",
                hosts == 1 ? "" : (" .. worker" + std::to_string(hosts - 1)).c_str(),
                static_cast<unsigned long long>(options.events), options.gpus,
                options.gpus == 1 ? "" : "s");
    return 0;
}

} // namespace stepscope::cli
