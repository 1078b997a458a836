#include "model/pytorch/DeviceSteps.h"

#include <algorithm>
#include <limits>

namespace stepscope {

namespace {

constexpr int64_t kMinTime = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();

} // namespace

size_t extendStepsToDeviceWork(std::vector<TorchRange>& steps, std::vector<TorchLaunch> order,
                               const std::vector<uint32_t>& launchWork,
                               const std::vector<TorchRange>& work, std::vector<bool>* tiedOut) {
    const size_t n = steps.size();
    std::stable_sort(order.begin(), order.end(),
                     [](const TorchLaunch& a, const TorchLaunch& b) { return a.start < b.start; });
    std::vector<TorchRange> stepDevice(n, TorchRange{kMaxTime, kMinTime});
    std::vector<uint64_t> matched(n, 0);
    std::vector<bool> tied(work.size(), false);
    size_t step = 0, rt = 0;
    int64_t lo = kMaxTime, hi = kMinTime;
    bool anyMatched = false;
    while (step < n && rt < order.size()) {
        const TorchLaunch& r = order[rt];
        const TorchRange s = steps[step];
        if (r.start < s.start) {
            ++rt;
        } else if (r.end <= s.end) {
            for (uint32_t i = r.workBegin; i < r.workEnd; ++i) {
                const uint32_t d = launchWork[i];
                lo = std::min(lo, work[d].start);
                hi = std::max(hi, work[d].end);
                tied[d] = true;
                anyMatched = true;
                ++matched[step];
            }
            ++rt;
        } else if (r.start < s.end) {
            ++rt;
        } else {
            stepDevice[step] = {lo, hi};
            ++step;
            lo = kMaxTime;
            hi = kMinTime;
        }
    }
    while (step < n) {
        stepDevice[step] = {lo, hi};
        lo = kMaxTime;
        hi = kMinTime;
        ++step;
    }
    if (tiedOut) *tiedOut = tied;
    if (!anyMatched) return n;
    int64_t prevEnd = steps[0].start;
    if (stepDevice[0].start != kMaxTime)
        for (size_t d = 0; d < work.size(); ++d)
            if (!tied[d] && work[d].end < stepDevice[0].start)
                prevEnd = std::max(prevEnd, work[d].end);
    for (size_t i = 0; i < n; ++i) {
        const int64_t start = std::max(prevEnd, steps[i].start);
        int64_t end = steps[i].end;
        if (stepDevice[i].start == kMaxTime)
            end = std::max(end, start);
        else
            end = std::max({end, stepDevice[i].end, start});
        steps[i] = {start, end};
        prevEnd = end;
    }
    size_t keep = n;
    if (n > 1) {
        size_t last = n;
        while (last > 0 && matched[last - 1] == 0) --last;
        if (last > 0) {
            keep = last;
            const size_t i = last - 1;
            if (i > 0 && double(matched[i - 1]) * 0.8 > double(matched[i])) keep = i;
        }
    }
    return keep;
}

} // namespace stepscope
