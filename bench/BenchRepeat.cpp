#include "bench/BenchRepeat.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "model/CountText.h"
#include "model/synthetic/SyntheticProfile.h"

namespace stepscope::bench {

std::optional<EventsRepeat> parseEventsRepeat(const std::vector<std::string>& args,
                                              uint64_t maxRepeat, const char* usage) {
    EventsRepeat options;
    for (size_t i = 0; i < args.size(); ++i) {
        const uint64_t value =
            i + 1 < args.size() ? parseCount(args[i + 1], 1, kMaxSyntheticEvents).value_or(0) : 0;
        if (args[i] == "--events" && value > 0) {
            options.events = value;
            ++i;
        } else if (args[i] == "--repeat" && value > 0 && value <= maxRepeat) {
            options.repeat = value;
            ++i;
        } else {
            std::fprintf(stderr, "usage: %s\n", usage);
            return std::nullopt;
        }
    }
    return options;
}

double bestSeconds(int repeat, const std::function<void()>& work) {
    double best = 0;
    for (int i = 0; i < repeat; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        work();
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = i == 0 ? s : std::min(best, s);
    }
    return best;
}

double processCpuSeconds() {
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double threadCpuSeconds() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

} // namespace stepscope::bench
