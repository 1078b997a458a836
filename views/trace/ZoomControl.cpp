#include "views/trace/ZoomControl.h"

#include <algorithm>
#include <cmath>

namespace stepscope {

void ZoomControl::setTraceRange(TimeRange whole) {
    if (whole.span() < kMinSpanPs) whole.end = whole.start + kMinSpanPs;
    trace_ = whole;
    visible_ = whole;
    hasSelection_ = hasMark_ = false;
}

void ZoomControl::setVisibleRange(TimeRange r) {
    if (r.end < r.start) std::swap(r.start, r.end);
    int64_t span = std::clamp(r.span(), kMinSpanPs, trace_.span());
    // Keep the centre where the caller asked for it when the span had to grow.
    int64_t start = r.start + (r.span() - span) / 2;
    start = std::clamp(start, trace_.start, trace_.end - span);
    visible_ = {start, start + span};
}

void ZoomControl::zoomAt(double anchorFraction, double factor) {
    if (!(factor > 0)) return;
    anchorFraction = std::clamp(anchorFraction, 0.0, 1.0);
    const double span = double(visible_.span());
    const double anchor = double(visible_.start) + anchorFraction * span;
    const double newSpan = std::clamp(span / factor, double(kMinSpanPs), double(trace_.span()));
    const double start = anchor - anchorFraction * newSpan;
    const int64_t s = std::llround(start);
    setVisibleRange({s, s + std::llround(newSpan)});
}

void ZoomControl::panByFraction(double fraction) {
    const int64_t shift = std::llround(fraction * double(visible_.span()));
    setVisibleRange({visible_.start + shift, visible_.end + shift});
}

void ZoomControl::panByPixels(double dx, double widthPx) {
    if (widthPx <= 0) return;
    panByFraction(-dx / widthPx);
}

void ZoomControl::frame(TimeRange r, double marginFraction) {
    if (r.end < r.start) std::swap(r.start, r.end);
    const int64_t span = std::max(r.span(), kMinSpanPs);
    const int64_t margin = std::llround(double(span) * std::max(0.0, marginFraction));
    const int64_t centre = r.start + r.span() / 2;
    const int64_t half = span / 2 + margin;
    setVisibleRange({centre - half, centre + half});
}

void ZoomControl::setSelection(TimeRange r) {
    if (r.end < r.start) std::swap(r.start, r.end);
    selection_ = r;
    hasSelection_ = true;
}

double ZoomControl::toPixel(int64_t t, double widthPx) const {
    return double(t - visible_.start) * widthPx / double(visible_.span());
}

int64_t ZoomControl::toTime(double px, double widthPx) const {
    if (widthPx <= 0) return visible_.start;
    return visible_.start + std::llround(px * double(visible_.span()) / widthPx);
}

} // namespace stepscope
