// `stepscope-cli bench stats [--events N] [--repeat R]`: kernel stats and op stats over a
// synthetic profile, each beside a same-run baseline: one plain pass summing every event's
// duration (the least any whole-profile analysis must do). One JSON line per figure.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <time.h>
#include <vector>

#include "bench/BenchRepeat.h"
#include "bench/Benches.h"
#include "bench/SyntheticLoad.h"
#include "model/CountText.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/TfOpStats.h"
#include "model/synthetic/SyntheticProfile.h"

namespace stepscope::bench {

namespace {

struct Timing {
    double best = 0, median = 0;
    double cpuBest = 0; // CPU time of this thread, least over the repeats
};

Timing timeIt(int repeat, const std::function<void()>& work) {
    std::vector<double> seconds;
    double cpuBest = std::numeric_limits<double>::infinity();
    for (int i = 0; i < repeat; ++i) {
        const double c0 = threadCpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        work();
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        cpuBest = std::min(cpuBest, threadCpuSeconds() - c0);
    }
    std::sort(seconds.begin(), seconds.end());
    const size_t n = seconds.size();
    return {seconds.front(), n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2,
            cpuBest};
}

} // namespace

int runBenchStats(const std::vector<std::string>& args) {
    uint64_t events = 10'000'000, repeat = 5;
    std::string file;
    for (size_t i = 0; i < args.size(); ++i) {
        // 0 when the option has no valid value (1 .. kMaxSyntheticEvents).
        const uint64_t value =
            i + 1 < args.size() ? parseCount(args[i + 1], 1, kMaxSyntheticEvents).value_or(0) : 0;
        if (args[i] == "--events" && value > 0) {
            events = value;
            ++i;
        } else if (args[i] == "--repeat" && value > 0 && value <= 1000) {
            repeat = value;
            ++i;
        } else if (args[i] == "--file" && i + 1 < args.size()) {
            file = args[++i];
        } else {
            std::fprintf(stderr, "usage: stepscope-cli bench stats [--events N] [--file PATH] "
                                 "[--repeat R]\n"
                                 "  --file PATH  measure on this profile instead of a synthetic "
                                 "one\n");
            return 2;
        }
    }

    SyntheticOptions options;
    options.events = events;
    const LoadResult loaded =
        file.empty() ? loadSyntheticProfile(options, "bench") : loadPath(file);
    if (!loaded.ok()) {
        std::fprintf(stderr, "stepscope-cli bench stats: the profile failed to load: %s\n",
                     loaded.error.c_str());
        return 1;
    }
    const Profile& p = *loaded.profile;

    volatile int64_t sink = 0;
    const Timing baseline = timeIt(int(repeat), [&] {
        int64_t total = 0;
        for (EventIndex e = 0; e < p.eventCount(); ++e) total += p.duration(e);
        sink = sink + total;
    });
    size_t rows = 0;
    const Timing kernels =
        timeIt(int(repeat), [&] { rows += computeKernelStats(p).table.rowCount(); });
    const Timing ops = timeIt(int(repeat), [&] { rows += computeTfOpStats(p).rows.size(); });
    const Timing both = timeIt(int(repeat), [&] {
        rows += computeKernelStats(p).table.rowCount();
        rows += computeTfOpStats(p).rows.size();
    });
    if (rows == 0) std::fprintf(stderr, "note: the synthetic profile produced no stats rows\n");

    auto print = [&](const char* analysis, const Timing& t) {
        std::printf("{\"bench\":\"stats\",\"events\":%zu,\"analysis\":\"%s\",\"seconds\":%.6f,"
                    "\"median_seconds\":%.6f,\"cpu_seconds\":%.6f,\"baseline_seconds\":%.6f,"
                    "\"baseline_cpu_seconds\":%.6f,\"ratio\":%.2f,"
                    "\"repeat\":%llu}\n",
                    p.eventCount(), analysis, t.best, t.median, t.cpuBest, baseline.best,
                    baseline.cpuBest, baseline.best > 0 ? t.best / baseline.best : 0.0,
                    static_cast<unsigned long long>(repeat));
    };
    print("kernel_stats", kernels);
    print("tf_op_stats", ops);
    print("kernel_stats+tf_op_stats", both);
    std::fflush(stdout);
    return 0;
}

} // namespace stepscope::bench
