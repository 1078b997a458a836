#pragma once

#include <cstdint>

namespace stepscope {

// A closed-open time interval in picoseconds.
struct TimeRange {
    int64_t start = 0, end = 0;
    int64_t span() const { return end - start; }
    bool empty() const { return end <= start; }
    bool operator==(const TimeRange&) const = default;
};

// The timeline's time arithmetic, kept apart from any widget so it can be tested alone. Three
// intervals never mix: the whole trace (fixed per profile), the visible range (what the canvas
// shows; zoom and pan change only this) and the selection (a range the user picked; framing it
// changes the visible range, not the selection). A mark is a remembered range drawn as a band.
class ZoomControl {
public:
    // The narrowest visible range: below a nanosecond nothing in a profile is distinguishable.
    static constexpr int64_t kMinSpanPs = 1000;

    void setTraceRange(TimeRange whole);
    TimeRange traceRange() const { return trace_; }
    TimeRange visibleRange() const { return visible_; }
    // Sets the visible range, clamped to the trace and to at least kMinSpanPs.
    void setVisibleRange(TimeRange r);
    void showAll() { visible_ = trace_; }

    // Zooms by `factor` (> 1 zooms in) keeping the time under `anchorFraction` (0 = left edge,
    // 1 = right edge of the visible range) where it is.
    void zoomAt(double anchorFraction, double factor);
    // Moves the visible range by a fraction of its span (positive = later).
    void panByFraction(double fraction);
    // Moves it so that content follows a drag of `dx` pixels on a canvas `widthPx` wide.
    void panByPixels(double dx, double widthPx);
    // Shows `r` with `marginFraction` of its span free on either side.
    void frame(TimeRange r, double marginFraction = 0.1);

    bool hasSelection() const { return hasSelection_; }
    TimeRange selection() const { return selection_; }
    void setSelection(TimeRange r);
    void clearSelection() { hasSelection_ = false; }

    bool hasMark() const { return hasMark_; }
    TimeRange mark() const { return mark_; }
    void setMark(TimeRange r) {
        mark_ = r;
        hasMark_ = true;
    }
    void clearMark() { hasMark_ = false; }

    // Pixel <-> time on a canvas `widthPx` wide showing the visible range.
    double toPixel(int64_t t, double widthPx) const;
    int64_t toTime(double px, double widthPx) const;

private:
    TimeRange trace_{0, kMinSpanPs};
    TimeRange visible_{0, kMinSpanPs};
    TimeRange selection_;
    TimeRange mark_;
    bool hasSelection_ = false;
    bool hasMark_ = false;
};

} // namespace stepscope
