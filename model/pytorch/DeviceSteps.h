#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/pytorch/TorchRanges.h"

namespace stepscope {

// event_parser.py _find_device_steps and _update_steps_duration, shared by TorchTrace and the
// Kineto importer's device "Steps" lines (kineto/StepTracker). `steps`: host step ranges sorted
// by start; each launch (a runtime event) lists the device events it caused (indices into
// `work`). A launch inside a
// step (start >= step start, end <= step end) ties its device events to the step; when any is
// tied, step i becomes [max(previous step's end, host start), max(host end, last end of its device
// events)] (step 0's "previous end": the host start, or the last end of untied device work
// ending before step 0's first device event), and trailing steps with no device event, then a
// last one with under 0.8 x the previous step's, are dropped. Returns how many steps are kept
// (all, when none is tied); `tied`, when given, receives which device events were tied.
struct TorchLaunch {
    int64_t start = 0, end = 0;
    uint32_t workBegin = 0, workEnd = 0; // its device events: launchWork[workBegin, workEnd)
};
size_t extendStepsToDeviceWork(std::vector<TorchRange>& steps, std::vector<TorchLaunch> launches,
                               const std::vector<uint32_t>& launchWork,
                               const std::vector<TorchRange>& work,
                               std::vector<bool>* tied = nullptr);

} // namespace stepscope
