// `stepscope-cli bench overview [--events N] [--repeat R]`: the overview and input-pipeline
// analyses over a synthetic profile (steps with group ids, a Steps line per GPU, launches,
// kernels, copies, collectives), each beside the load of the same profile in the same run (the
// time a user already waits before any page shows). One JSON line per figure.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/BenchRepeat.h"
#include "bench/Benches.h"
#include "model/ProfileLoader.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/Overview.h"
#include "model/synthetic/SyntheticProfile.h"

namespace stepscope::bench {

int runBenchOverview(const std::vector<std::string>& args) {
    const std::optional<EventsRepeat> parsed =
        parseEventsRepeat(args, 100, "stepscope-cli bench overview [--events N] [--repeat R]");
    if (!parsed) return 2;
    const uint64_t events = parsed->events, repeat = parsed->repeat;
    SyntheticOptions options;
    options.events = events;
    const std::vector<uint8_t> bytes = generateSyntheticXSpace(options, "bench");
    LoadResult loaded;
    const double load = bestSeconds(int(repeat), [&] { loaded = loadXSpaceBytes(bytes, "bench"); });
    if (!loaded.ok()) {
        std::fprintf(stderr, "stepscope-cli bench overview: synthetic profile failed to load: %s\n",
                     loaded.error.c_str());
        return 1;
    }
    const Profile& p = *loaded.profile;
    size_t steps = 0, recommendations = 0;
    const double overview = bestSeconds(int(repeat), [&] {
        const Overview o = computeOverview(p);
        steps = o.steps.steps.size();
        recommendations = o.recommendations.size();
    });
    size_t inputOps = 0;
    const double input =
        bestSeconds(int(repeat), [&] { inputOps = computeInputPipeline(p).steps.steps.size(); });
    if (inputOps != steps) std::fprintf(stderr, "note: the two analyses found different steps\n");
    auto print = [&](const char* analysis, double seconds) {
        std::printf("{\"bench\":\"overview\",\"events\":%zu,\"analysis\":\"%s\",\"seconds\":%.6f,"
                    "\"load_seconds\":%.6f,\"ratio_to_load\":%.3f,\"steps\":%zu,"
                    "\"recommendations\":%zu,\"repeat\":%llu}\n",
                    p.eventCount(), analysis, seconds, load, load > 0 ? seconds / load : 0.0, steps,
                    recommendations, static_cast<unsigned long long>(repeat));
    };
    print("overview", overview);
    print("input_pipeline", input);
    std::fflush(stdout);
    return 0;
}

} // namespace stepscope::bench
