#include "model/MinMaxDownsample.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope {

namespace {

// The pixel columns of [x0, x1]: column c holds the samples with start(c) <= x < start(c + 1);
// the last column also holds those at x1.
struct Columns {
    std::span<const double> x;
    size_t first = 0, last = 0; // samples [first, last) lie in [x0, x1]
    int count = 1;
    double x0 = 0, width = 0;

    Columns(std::span<const double> xs, double lo, double hi, int columns)
        : x(xs)
        , first(size_t(std::lower_bound(xs.begin(), xs.end(), lo) - xs.begin()))
        , last(size_t(std::upper_bound(xs.begin(), xs.end(), hi) - xs.begin()))
        , count(std::max(columns, 1))
        , x0(lo)
        , width(hi > lo ? (hi - lo) / count : 0) {}

    double start(int c) const { return x0 + c * width; }
    // Calls f(c, begin, end) for every column with samples, in order. A binary search finds
    // each column's end, so a frame costs columns x log(samples) plus one scan of the samples.
    template <class F> void forEach(F f) const {
        size_t begin = first;
        while (begin < last) {
            // The column of x[begin]: the last c with start(c) <= x[begin].
            int c = width > 0 ? std::min(count - 1, int((x[begin] - x0) / width)) : count - 1;
            while (c > 0 && x[begin] < start(c)) --c;
            while (c + 1 < count && x[begin] >= start(c + 1)) ++c;
            const size_t end =
                c + 1 < count
                    ? size_t(std::lower_bound(x.begin() + begin, x.begin() + last, start(c + 1)) -
                             x.begin())
                    : last;
            f(c, begin, end);
            begin = end;
        }
    }
};

// The first index of the smallest and largest non-NaN value in [begin, end) by reading each one:
// the plain series' form.
struct ScanExtrema {
    std::span<const double> y;
    std::pair<size_t, size_t> find(size_t begin, size_t end) const {
        size_t minAt = end, maxAt = end;
        for (size_t i = begin; i < end; ++i) {
            const double v = y[i];
            if (std::isnan(v)) continue;
            if (minAt == end || v < y[minAt]) minAt = i;
            if (maxAt == end || v > y[maxAt]) maxAt = i;
        }
        return {minAt, maxAt};
    }
};

template <class Extrema>
std::vector<uint32_t> downsample(std::span<const double> x, const Extrema& extrema, double x0,
                                 double x1, int columns) {
    std::vector<uint32_t> out;
    if (x.empty()) return out;
    const Columns cols(x, x0, x1, columns);
    if (cols.first > 0) out.push_back(uint32_t(cols.first - 1));
    if (cols.last - cols.first <= size_t(cols.count) * 3) {
        for (size_t i = cols.first; i < cols.last; ++i) out.push_back(uint32_t(i));
    } else {
        cols.forEach([&](int, size_t begin, size_t end) {
            const auto [minAt, maxAt] = extrema.find(begin, end);
            size_t picks[3] = {minAt, maxAt, end - 1};
            std::sort(picks, picks + 3);
            for (size_t p : picks)
                if (p != end && (out.empty() || out.back() != p)) out.push_back(uint32_t(p));
        });
    }
    if (cols.last < x.size()) out.push_back(uint32_t(cols.last));
    return out;
}

template <class Extrema>
StepOutline envelope(std::span<const double> x, std::span<const double> y, const Extrema& extrema,
                     double x0, double x1, int columns) {
    StepOutline out;
    if (x.empty()) return out;
    const Columns cols(x, x0, x1, columns);
    const auto push = [&out](double px, double py) {
        if (std::isnan(py)) return;
        out.x.push_back(px);
        out.y.push_back(py);
    };
    double current = cols.first > 0 ? y[cols.first - 1] : std::nan(""); // the value holding now
    int previous = -1;
    cols.forEach([&](int c, size_t begin, size_t end) {
        if (previous < 0 && c > 0)
            push(x0, current); // carried in from before the plot
        else if (previous >= 0 && c != previous + 1)
            push(cols.start(previous + 1), current); // carried out over empty columns
        const size_t maxAt = extrema.find(begin, end).second;
        double top = current;
        if (maxAt != end) {
            top = std::isnan(top) ? y[maxAt] : std::max(top, y[maxAt]);
            size_t lastAt = end - 1; // the column's last value is what it carries out
            while (std::isnan(y[lastAt])) --lastAt; // stops at maxAt at the latest
            current = y[lastAt];
        }
        push(cols.start(c), top);
        previous = c;
    });
    if (cols.last < x.size()) { // the series goes on past x1
        if (previous < 0)
            push(x0, current); // no sample in view: the carried-in value spans it
        else if (previous + 1 < cols.count)
            push(cols.start(previous + 1), current);
        push(x1, current);
    }
    return out;
}

} // namespace

RangeExtrema::RangeExtrema(std::span<const double> y)
    : y_(y) {
    // Level 0 from the samples, each further level from 16 blocks of the one below.
    const auto better = [](double a, double b, bool smaller) { return smaller ? a < b : a > b; };
    const auto pick = [&](uint32_t a, uint32_t b, bool smaller) {
        if (a == kNone) return b;
        if (b == kNone) return a;
        return better(y_[b], y_[a], smaller) ? b : a; // the first of equals
    };
    for (size_t blockSize = kFanOut; blockSize <= y.size(); blockSize *= kFanOut) {
        std::vector<Extremes> level(y.size() / blockSize);
        for (size_t b = 0; b < level.size(); ++b) {
            Extremes e{kNone, kNone};
            for (size_t part = 0; part < kFanOut; ++part) {
                Extremes sub;
                if (levels_.empty()) {
                    const size_t i = b * kFanOut + part;
                    sub.minAt = sub.maxAt = std::isnan(y[i]) ? kNone : uint32_t(i);
                } else {
                    sub = levels_.back()[b * kFanOut + part];
                }
                e.minAt = pick(e.minAt, sub.minAt, true);
                e.maxAt = pick(e.maxAt, sub.maxAt, false);
            }
            level[b] = e;
        }
        levels_.push_back(std::move(level));
    }
}

std::pair<size_t, size_t> RangeExtrema::find(size_t begin, size_t end) const {
    size_t minAt = end, maxAt = end;
    const auto take = [&](uint32_t lo, uint32_t hi) {
        if (lo == kNone) return;
        if (minAt == end || y_[lo] < y_[minAt]) minAt = lo;
        if (maxAt == end || y_[hi] > y_[maxAt]) maxAt = hi;
    };
    size_t i = begin;
    while (i < end) {
        // The largest block that starts at i and ends by `end`: level k has blocks of 16^(k+1).
        size_t level = 0, size = 1;
        while (level < levels_.size() && i % (size * kFanOut) == 0 && i + size * kFanOut <= end) {
            size *= kFanOut;
            ++level;
        }
        if (level == 0) {
            if (!std::isnan(y_[i])) take(uint32_t(i), uint32_t(i));
        } else {
            const Extremes& e = levels_[level - 1][i / size];
            take(e.minAt, e.maxAt);
        }
        i += size;
    }
    return {minAt, maxAt};
}

std::vector<uint32_t> minMaxDownsample(std::span<const double> x, std::span<const double> y,
                                       double x0, double x1, int columns) {
    return downsample(x, ScanExtrema{y}, x0, x1, columns);
}

std::vector<uint32_t> minMaxDownsample(std::span<const double> x, const RangeExtrema& y, double x0,
                                       double x1, int columns) {
    return downsample(x, y, x0, x1, columns);
}

StepOutline stepEnvelope(std::span<const double> x, std::span<const double> y, double x0, double x1,
                         int columns) {
    return envelope(x, y, ScanExtrema{y}, x0, x1, columns);
}

StepOutline stepEnvelope(std::span<const double> x, const RangeExtrema& y, double x0, double x1,
                         int columns) {
    return envelope(x, y.values(), y, x0, x1, columns);
}

} // namespace stepscope
