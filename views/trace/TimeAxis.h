#pragma once

#include "model/TimeFormat.h" // formatDuration, used with the axis everywhere

#include <cstdint>
#include <string>
#include <vector>

#include "views/trace/ZoomControl.h"

class QPainter;
class QRect;

namespace stepscope {

// Tick spacing and labelling of the time axis: steps of 1, 2 or 5 x 10^k picoseconds, the
// smallest whose labels fit side by side; labels are times from the profile start in the unit
// that suits the step ("1.5 ms", "480 ns"). Zoomed in far from the start, as Perfetto does,
// labels that would need five digits or more become offsets ("+120 µs") from a base time shown once
// (baseLabel(): "1.8058 s"), a multiple of ten steps at or before the view's start, so labels never
// run to seven digits.
struct TimeAxisScale {
    int64_t stepPs = 1;
    int64_t unitPs = 1; // 1 ps, 1 ns, 1 µs, 1 ms or 1 s
    int decimals = 0;   // digits after the point needed to tell ticks apart
    const char* unit = "ps";
    int64_t basePs = 0; // labels are offsets from this time when it is not 0

    std::string label(int64_t t) const;
    // The base time in seconds, with the digits that tell ten steps apart; empty when 0.
    std::string baseLabel() const;
    // Tick times inside `visible`, ascending.
    std::vector<int64_t> ticks(TimeRange visible) const;
};

// `charWidthPx` is the average width of a digit in the axis font; ticks keep their labels at
// least a few characters apart.
TimeAxisScale chooseTimeAxis(TimeRange visible, double widthPx, double charWidthPx);

// Draws `axis`'s ticks up from the bottom of `band`, which shows `visible` across its width:
// labelled major ticks, and minor ticks at a fifth of the step where they do not crowd. Labels
// that would run past the band's right edge are left out. Uses the painter's font and pen.
void paintTimeTicks(QPainter& painter, const QRect& band, TimeRange visible,
                    const TimeAxisScale& axis);

} // namespace stepscope
