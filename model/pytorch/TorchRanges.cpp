#include "model/pytorch/TorchRanges.h"

#include <algorithm>

namespace stepscope {

std::vector<TorchRange> mergeRanges(std::vector<TorchRange> ranges) {
    std::stable_sort(ranges.begin(), ranges.end(),
                     [](const TorchRange& a, const TorchRange& b) { return a.start < b.start; });
    std::vector<TorchRange> out;
    for (const TorchRange& r : ranges) {
        if (out.empty()) {
            out.push_back(r);
        } else if (r.end > out.back().end) {
            // As the plugin: a range that starts where the last one ends joins it.
            if (r.start <= out.back().end)
                out.back().end = r.end;
            else
                out.push_back(r);
        }
    }
    return out;
}

std::vector<TorchRange> intersectRanges(const std::vector<TorchRange>& a,
                                        const std::vector<TorchRange>& b) {
    std::vector<TorchRange> out;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t lo = std::max(a[i].start, b[j].start);
        const int64_t hi = std::min(a[i].end, b[j].end);
        if (lo < hi) out.push_back({lo, hi});
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

std::vector<TorchRange> subtractRanges(const std::vector<TorchRange>& a,
                                       const std::vector<TorchRange>& b) {
    std::vector<TorchRange> out;
    size_t j = 0;
    for (TorchRange r : a) {
        while (j < b.size() && b[j].end <= r.start) ++j;
        size_t k = j;
        while (k < b.size() && b[k].start < r.end) {
            if (b[k].start > r.start) out.push_back({r.start, b[k].start});
            r.start = std::max(r.start, b[k].end);
            if (r.start >= r.end) break;
            ++k;
        }
        if (r.start < r.end) out.push_back(r);
    }
    return out;
}

int64_t rangesLength(const std::vector<TorchRange>& ranges) {
    int64_t sum = 0;
    for (const TorchRange& r : ranges) sum += r.end - r.start;
    return sum;
}

std::vector<TorchValuedRange> mergeValuedRanges(const std::vector<TorchValuedRange>& ranges) {
    struct Point {
        int64_t time;
        bool end; // starts sort before ends at one time
        double value;
    };
    std::vector<Point> points;
    points.reserve(ranges.size() * 2);
    for (const TorchValuedRange& r : ranges) {
        points.push_back({r.start, false, r.value});
        points.push_back({r.end, true, r.value});
    }
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
        return a.time != b.time ? a.time < b.time : a.end < b.end;
    });
    std::vector<TorchValuedRange> out;
    if (points.empty()) return out;
    int64_t last = points[0].time;
    double value = points[0].value;
    for (size_t i = 1; i < points.size(); ++i) {
        const Point& p = points[i];
        if (p.time > last && value > 0.0) out.push_back({last, p.time, std::min(value, 1.0)});
        last = p.time;
        value += p.end ? -p.value : p.value;
    }
    return out;
}

} // namespace stepscope
