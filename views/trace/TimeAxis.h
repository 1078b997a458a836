#pragma once

#include "model/TimeFormat.h" // formatDuration, used with the axis everywhere

#include <cstdint>
#include <string>
#include <vector>

#include "views/trace/ZoomControl.h"

namespace stepscope {

// Tick spacing and labelling of the time axis: steps of 1, 2 or 5 x 10^k picoseconds, the
// smallest whose labels fit side by side; labels are times from the profile start in the unit
// that suits the step ("1.5 ms", "480 ns").
struct TimeAxisScale {
    int64_t stepPs = 1;
    int64_t unitPs = 1; // 1 ps, 1 ns, 1 µs, 1 ms or 1 s
    int decimals = 0;   // digits after the point needed to tell ticks apart
    const char* unit = "ps";

    std::string label(int64_t t) const;
    // Tick times inside `visible`, ascending.
    std::vector<int64_t> ticks(TimeRange visible) const;
};

// `charWidthPx` is the average width of a digit in the axis font; ticks keep their labels at
// least a few characters apart.
TimeAxisScale chooseTimeAxis(TimeRange visible, double widthPx, double charWidthPx);

} // namespace stepscope
