#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace stepscope {

// Drawing a step series (sample i's value holds from x[i] until x[i + 1]) in a plot `columns`
// pixels wide over [x0, x1], at a cost of pixels rather than samples, so that a timeline of a
// million allocator events stays fluid, and without ever losing a peak.
//
// Both functions split [x0, x1] into `columns` equal pixel columns. Within a column, the series
// takes the value carried in from the last sample before it and the value of every sample inside
// it. `x` must be ascending (equal values allowed) and as long as `y`; NaN values are skipped.
//
// Each has two forms: over a plain series, which scans the visible samples (a frame of the whole
// series reads every sample), and over a RangeExtrema built once per series, which finds each
// column's extremes in a few dozen steps whatever its sample count, so that a frame of a million
// samples costs columns x log(samples). Both give identical results.

// The smallest and largest value of any range of a series, in O(log n) steps: blocks of 16, 256,
// 4096, ... samples keep the index of their smallest and largest value, and a range is covered
// greedily by single samples and the largest aligned blocks that fit. Holds a view of the values:
// they must outlive it and not move.
class RangeExtrema {
public:
    RangeExtrema() = default;
    explicit RangeExtrema(std::span<const double> y);

    std::span<const double> values() const { return y_; }
    // The first index of the smallest and of the largest value in [begin, end) (NaN skipped);
    // `end` for both when there is none.
    std::pair<size_t, size_t> find(size_t begin, size_t end) const;

private:
    static constexpr size_t kFanOut = 16;
    static constexpr uint32_t kNone = UINT32_MAX; // a block of NaN only
    struct Extremes {
        uint32_t minAt, maxAt;
    };
    std::span<const double> y_;
    std::vector<std::vector<Extremes>> levels_; // levels_[k][b]: block b of 16^(k+1) samples
};

// The samples to draw as a line: per column its first and last sample and one sample where y is
// smallest and one where it is largest (the first of equals), in order, plus the last sample
// before x0 and the first after x1 so the line runs to the plot's edges. Drawn as steps, each
// column then spans exactly the min..max of the full series there (the carried-in value is the
// previous column's kept last sample): every extreme survives and nothing is invented. A column
// without samples keeps nothing: the step carries across it. Returns ascending, distinct indices,
// at most 4 per column plus 2; all visible samples when they are no more than that.
std::vector<uint32_t> minMaxDownsample(std::span<const double> x, std::span<const double> y,
                                       double x0, double x1, int columns);
std::vector<uint32_t> minMaxDownsample(std::span<const double> x, const RangeExtrema& y, double x0,
                                       double x1, int columns);

// The upper envelope of the series, for filling the area under it: a step outline whose value
// over each column is the largest the series takes there, so the filled area reaches every peak.
// The value carried in counts even when a sample sits right at the column's start: the step line
// draws that jump inside the column, and the fill must reach its top. Points are (x, y) pairs in
// order: for each column with samples, (column start, envelope) and then (next column start, value
// carried out), which holds across following empty columns; starts at x0 with the value carried in,
// when there is one.
struct StepOutline {
    std::vector<double> x, y;
};
StepOutline stepEnvelope(std::span<const double> x, std::span<const double> y, double x0, double x1,
                         int columns);
StepOutline stepEnvelope(std::span<const double> x, const RangeExtrema& y, double x0, double x1,
                         int columns);

} // namespace stepscope
