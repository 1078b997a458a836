#include "views/trace/TimeAxis.h"

#include <QFontMetrics>
#include <QPainter>
#include <QRect>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace stepscope {

namespace {
struct Unit {
    int64_t ps;
    const char* name;
};
constexpr Unit kUnits[] = {
    {1, "ps"}, {1000, "ns"}, {1000000, "µs"}, {1000000000, "ms"}, {1000000000000, "s"}};

TimeAxisScale scaleForStep(int64_t step) {
    TimeAxisScale s;
    s.stepPs = step;
    // The largest unit that needs at most one decimal for this step: 500 µs ticks read "1.5 ms",
    // 10 ms ticks "20 ms" (not "0.02 s").
    for (const Unit& u : kUnits)
        if (step * 10 >= u.ps) {
            s.unitPs = u.ps;
            s.unit = u.name;
        }
    int decimals = 0;
    for (int64_t q = s.unitPs; q > 1 && step % q != 0; q /= 10) ++decimals;
    s.decimals = decimals;
    return s;
}
} // namespace

std::string TimeAxisScale::label(int64_t t) const {
    char buf[64];
    if (basePs != 0) {
        TimeAxisScale offset = *this;
        offset.basePs = 0;
        return "+" + offset.label(t - basePs);
    }
    if (decimals == 0 || unitPs == 1) {
        std::snprintf(buf, sizeof buf, "%lld %s", static_cast<long long>(t / unitPs), unit);
    } else {
        std::snprintf(buf, sizeof buf, "%.*f %s", decimals, double(t) / double(unitPs), unit);
    }
    return buf;
}

std::string TimeAxisScale::baseLabel() const {
    if (basePs == 0) return {};
    int decimals = 0;
    for (int64_t q = 1000000000000; q > stepPs * 10 && decimals < 12; q /= 10) ++decimals;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f s", decimals, double(basePs) / 1e12);
    return buf;
}

std::vector<int64_t> TimeAxisScale::ticks(TimeRange visible) const {
    std::vector<int64_t> out;
    if (stepPs <= 0 || visible.empty()) return out;
    int64_t t = visible.start >= 0 ? (visible.start + stepPs - 1) / stepPs * stepPs
                                   : -((-visible.start) / stepPs * stepPs);
    for (; t < visible.end; t += stepPs) out.push_back(t);
    return out;
}

TimeAxisScale chooseTimeAxis(TimeRange visible, double widthPx, double charWidthPx) {
    const double pxPerPs = widthPx / double(std::max<int64_t>(1, visible.span()));
    for (int64_t mag = 1; mag <= 1000000000000000000 / 10; mag *= 10) {
        for (int64_t m : {1, 2, 5}) {
            const int64_t step = m * mag;
            TimeAxisScale s = scaleForStep(step);
            // Where absolute labels would take five digits or more, a base every ten steps:
            // labels from "+0" up to about twenty steps.
            const int64_t baseStep = step * 10;
            if (visible.end / s.unitPs >= 10000 && visible.start >= baseStep)
                s.basePs = visible.start / baseStep * baseStep;
            const double labelPx = double(s.label(visible.end).size() + 3) * charWidthPx;
            if (double(step) * pxPerPs >= std::max(60.0, labelPx)) return s;
        }
    }
    return scaleForStep(1000000000000000000);
}

void paintTimeTicks(QPainter& p, const QRect& band, TimeRange visible, const TimeAxisScale& axis) {
    const QFontMetrics fm(p.font());
    const double span = double(std::max<int64_t>(1, visible.span()));
    auto x = [&](int64_t t) {
        return int(std::lround(band.left() + double(t - visible.start) * band.width() / span));
    };
    const int bottom = band.bottom();
    for (int64_t t : axis.ticks(visible)) {
        const int tx = x(t);
        p.drawLine(tx, bottom - 7, tx, bottom);
        const QString label = QString::fromStdString(axis.label(t));
        if (tx + 3 + fm.horizontalAdvance(label) <= band.right())
            p.drawText(QPointF(tx + 3, bottom - 9), label);
    }
    if (double(axis.stepPs) * band.width() / span < 50) return; // minor ticks would crowd
    TimeAxisScale minor = axis;
    minor.stepPs = std::max<int64_t>(1, axis.stepPs / 5);
    for (int64_t t : minor.ticks(visible)) {
        const int tx = x(t);
        p.drawLine(tx, bottom - 3, tx, bottom);
    }
}

} // namespace stepscope
