#pragma once

#include <cstdint>
#include <vector>

namespace stepscope {

// Interval algebra of the PyTorch profiler's TensorBoard plugin
// (tb_plugin/torch_tb_profiler/profiler/range_utils.py in pytorch/kineto, last present at commit
// 790be856), on picosecond times. Lists named "merged" are sorted and disjoint.
struct TorchRange {
    int64_t start = 0, end = 0;
    bool operator==(const TorchRange&) const = default;
};

// A range with a value (the plugin's (start, end, value) triples).
struct TorchValuedRange {
    int64_t start = 0, end = 0;
    double value = 0;
};

// Sorted by start and merged where they overlap or touch (merge_ranges).
std::vector<TorchRange> mergeRanges(std::vector<TorchRange> ranges);
// The parts of merged list `a` that lie in merged list `b` (intersection_ranges_lists).
std::vector<TorchRange> intersectRanges(const std::vector<TorchRange>& a,
                                        const std::vector<TorchRange>& b);
// The parts of merged list `a` outside merged list `b` (subtract_ranges_lists).
std::vector<TorchRange> subtractRanges(const std::vector<TorchRange>& a,
                                       const std::vector<TorchRange>& b);
int64_t rangesLength(const std::vector<TorchRange>& ranges);

// Overlapping valued ranges summed at each instant, the sum capped at 1, spans where it is 0
// dropped (merge_ranges_with_value: the estimated SM efficiency from blocks per SM).
std::vector<TorchValuedRange> mergeValuedRanges(const std::vector<TorchValuedRange>& ranges);

} // namespace stepscope
