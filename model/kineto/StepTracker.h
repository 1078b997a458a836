#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "model/Column.h"
#include "model/StringPool.h"
#include "model/pytorch/DeviceSteps.h"

namespace stepscope::kineto {

// PyTorch's ProfilerStep#N ranges, and the runtime launches inside the steps, from which the
// device "Steps" lines are made.
class StepTracker {
public:
    struct Step {
        int64_t start, end;
        StringId name;
        int64_t number; // N of ProfilerStep#N (-1: not a number)
    };
    // A host range: kept where `nameText` is "ProfilerStep#N".
    void addRange(int64_t start, int64_t end, StringId name, std::string_view nameText);
    bool empty() const { return steps_.empty(); }
    void reserveLaunches(size_t n) { launches_.reserve(launches_.size() + n); }
    void addLaunch(int64_t start, int64_t end, uint64_t correlation) {
        launches_.push_back({start, end, correlation});
    }
    // Moves the steps to the device work their launches caused: `work` holds the device work's
    // ranges, `byCorrelation` (correlation id, index into work) the work of each correlation.
    void extend(const std::vector<TorchRange>& work,
                std::vector<std::pair<uint64_t, uint32_t>> byCorrelation);
    const std::vector<Step>& steps() const { return steps_; }

private:
    struct StepLaunch {
        int64_t start, end;
        uint64_t correlation;
    };
    std::vector<Step> steps_;
    Column<StepLaunch> launches_; // runtime launches, kept for extend
};

} // namespace stepscope::kineto
