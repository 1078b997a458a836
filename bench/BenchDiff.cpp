// `stepscope-cli bench diff [--events N] [--repeat R]`: the run diff of a synthetic profile with
// a second one (another seed: same shape, other durations), beside a same-run baseline: kernel
// stats and TF op stats of both profiles, the tables a diff of aggregates (HTA, Nsight) compares.
// steps_seconds: the step analysis of both runs alone, which the diff starts with. One JSON line.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/BenchRepeat.h"
#include "bench/Benches.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/RunDiff.h"
#include "model/analysis/TfOpStats.h"
#include "model/synthetic/SyntheticProfile.h"

namespace stepscope::bench {

int runBenchDiff(const std::vector<std::string>& args) {
    const std::optional<EventsRepeat> parsed =
        parseEventsRepeat(args, 1000, "stepscope-cli bench diff [--events N] [--repeat R]");
    if (!parsed) return 2;
    const uint64_t events = parsed->events, repeat = parsed->repeat;
    std::shared_ptr<const Profile> runs[2];
    for (int r = 0; r < 2; ++r) {
        SyntheticOptions options;
        options.events = events;
        options.seed += uint64_t(r);
        const std::vector<uint8_t> bytes = generateSyntheticXSpace(options, "bench");
        LoadResult loaded = loadXSpaceBytes(bytes, "bench");
        if (!loaded.ok()) {
            std::fprintf(stderr, "stepscope-cli bench diff: synthetic profile failed to load: %s\n",
                         loaded.error.c_str());
            return 1;
        }
        runs[r] = std::move(loaded.profile);
    }
    size_t rows = 0, pairs = 0;
    const double baseline = bestSeconds(int(repeat), [&] {
        for (const auto& p : runs) {
            rows += computeKernelStats(*p).table.rowCount();
            rows += computeTfOpStats(*p).rows.size();
        }
    });
    // The step analysis of both runs, which the diff runs first (StepAnalysis, the overview's).
    const double steps = bestSeconds(int(repeat), [&] {
        for (const auto& p : runs) rows += analyzeSteps(*p).steps.size();
    });
    const double diff = bestSeconds(int(repeat), [&] {
        const RunDiff d = diffRuns(*runs[0], *runs[1], {});
        rows += d.ops.size() + d.kernels.size();
        pairs = d.pairing.pairs.size();
    });
    if (rows == 0) std::fprintf(stderr, "note: the synthetic profiles produced no rows\n");
    std::printf("{\"bench\":\"diff\",\"events\":%zu,\"step_pairs\":%zu,\"seconds\":%.6f,"
                "\"steps_seconds\":%.6f,\"baseline_seconds\":%.6f,"
                "\"baseline\":\"kernel_stats+tf_op_stats of both\",\"ratio\":%.2f,"
                "\"repeat\":%llu}\n",
                runs[0]->eventCount(), pairs, diff, steps, baseline,
                baseline > 0 ? diff / baseline : 0.0, static_cast<unsigned long long>(repeat));
    std::fflush(stdout);
    return 0;
}

} // namespace stepscope::bench
