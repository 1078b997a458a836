#include "model/kineto/StepTracker.h"

#include <algorithm>
#include <string>

#include "model/pytorch/DeviceSteps.h"

namespace stepscope::kineto {

void StepTracker::addRange(int64_t start, int64_t end, StringId name, std::string_view nameText) {
    if (!nameText.starts_with("ProfilerStep#")) return;
    int64_t number = -1;
    const std::string_view digits = nameText.substr(13);
    if (!digits.empty() && digits.size() < 18 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        number = std::stoll(std::string(digits));
    steps_.push_back({start, end, name, number});
}

// The device "Steps" lines: the ProfilerStep#N ranges moved to the device work their launches
// caused, as the PyTorch TensorBoard plugin does (event_parser.py update_device_steps; see
// extendStepsToDeviceWork): kernels run after their launch, so the host range would give much
// of step N's device time to step N+1. Trailing steps whose device work was not captured are
// dropped from these lines; the host ranges stay as recorded.
void StepTracker::extend(const std::vector<TorchRange>& work,
                         std::vector<std::pair<uint64_t, uint32_t>> byCorrelation) {
    if (steps_.empty()) return;
    std::stable_sort(steps_.begin(), steps_.end(),
                     [](const Step& a, const Step& b) { return a.start < b.start; });
    if (!std::is_sorted(byCorrelation.begin(), byCorrelation.end())) // (most often they are)
        std::sort(byCorrelation.begin(), byCorrelation.end());
    std::vector<uint32_t> launchWork(byCorrelation.size());
    for (size_t i = 0; i < byCorrelation.size(); ++i) launchWork[i] = byCorrelation[i].second;
    std::vector<TorchLaunch> launches;
    launches.reserve(launches_.size());
    for (const StepLaunch& l : launches_) {
        const auto lo = std::lower_bound(byCorrelation.begin(), byCorrelation.end(),
                                         std::make_pair(l.correlation, uint32_t(0)));
        auto hi = lo;
        while (hi != byCorrelation.end() && hi->first == l.correlation) ++hi;
        launches.push_back({l.start, l.end, uint32_t(lo - byCorrelation.begin()),
                            uint32_t(hi - byCorrelation.begin())});
    }
    Column<StepLaunch>().swap(launches_);
    std::vector<TorchRange> ranges;
    for (const Step& s : steps_) ranges.push_back({s.start, s.end});
    const size_t keep = extendStepsToDeviceWork(ranges, std::move(launches), launchWork, work);
    steps_.resize(keep);
    for (size_t i = 0; i < keep; ++i) {
        steps_[i].start = ranges[i].start;
        steps_[i].end = ranges[i].end;
    }
}

} // namespace stepscope::kineto
