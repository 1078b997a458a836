#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/StepAnalysis.h"

namespace stepscope {

// The GPU work of one step of one run, laid out for drawing: one row per (GPU stream, nesting
// level) that ran something in the step. A row is columns addressed by bar index, in start
// order, whose bars never overlap (those of one level of one stream), so a timeline finds the
// visible bars with two binary searches (eventsOverlapping) and folds runs of narrow ones
// without looking at each. Times are ps from the step's start.
struct StepLane {
    struct Row {
        std::string name;             // "GPU:0 stream 7"; deeper levels add " · level 2"
        std::vector<int64_t> beginPs; // ascending
        std::vector<int64_t> durationPs;
        std::vector<uint32_t> op;     // into StepLanes::ops
        std::vector<uint32_t> kernel; // into StepLanes::kernels
        size_t size() const { return beginPs.size(); }
    };
    std::string title; // "Baseline step 5"
    int64_t durationPs = 0;
    std::vector<Row> rows;
};

// The same step of both runs, with one op table and one kernel-name table for both lanes, so
// that an op has one index (and one colour) in both.
struct StepLanes {
    StepLane base, candidate;
    std::vector<std::string> ops;     // op names, as the diff's op rows name them
    std::vector<std::string> kernels; // the events' names
};

// Collects the GPU stream events that start inside each step (as RunDiff counts them), named by
// their framework op (OpCatalog, the diff's op rule). Runs in a worker.
StepLanes collectStepLanes(const Profile& base, const StepRecord& baseStep,
                           const Profile& candidate, const StepRecord& candidateStep);

} // namespace stepscope
