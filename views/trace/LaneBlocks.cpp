#include "views/trace/LaneBlocks.h"

#include <algorithm>
#include <cmath>

#include "model/LaneWindow.h"

namespace stepscope {

void foldEvents(Starts starts, Durations durations, EventRange lane, TimeRange visible,
                double widthPx, double minEventPx, std::vector<LaneBlock>& out) {
    if (visible.empty() || widthPx <= 0) return;
    const EventRange r = eventsOverlapping(starts, durations, lane, visible.start, visible.end);
    const int64_t t0 = visible.start;
    const double scale = widthPx / double(visible.span());
    auto px = [&](int64_t t) { return double(t - t0) * scale; };
    auto width = [&](EventIndex e) { return double(durations[e]) * scale; };

    // The first event in [from, r.end) that starts at or after pixel `boundary`. A galloping
    // search from `from`: the answer is usually a few events ahead (the events of one pixel),
    // so this touches O(log k) neighbouring entries instead of O(log n) scattered ones.
    auto firstStartingFrom = [&](EventIndex from, double boundary) {
        EventIndex lo = from, hi = from;
        for (EventIndex step = 1; hi < r.end && px(starts[hi]) < boundary; step *= 2) {
            lo = hi + 1;
            hi = r.end - hi > step ? hi + step : r.end;
        }
        while (lo < hi) {
            const EventIndex mid = lo + (hi - lo) / 2;
            if (px(starts[mid]) < boundary)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };

    EventIndex i = r.begin;
    while (i < r.end) {
        const double x0 = px(starts[i]);
        if (width(i) >= minEventPx) {
            out.push_back({x0, x0 + width(i), i, 1});
            ++i;
            continue;
        }
        const EventIndex runFirst = i;
        double runEnd = x0 + width(i);
        double column = std::floor(x0);
        while (true) {
            // Every event that starts in this pixel column joins the run.
            const double nextColumn = column + 1;
            EventIndex j = firstStartingFrom(i + 1, nextColumn);
            // Only the last of them can reach past the column; a wide one is drawn by itself.
            if (j - 1 > i && width(j - 1) >= minEventPx) --j;
            runEnd = std::max(runEnd, px(starts[j - 1] + durations[j - 1]));
            i = j;
            if (i >= r.end || width(i) >= minEventPx) break;
            const double nx = px(starts[i]);
            if (nx >= std::max(runEnd, nextColumn) + 1.0) break; // a visible gap ends the run
            column = std::floor(nx);
        }
        out.push_back({px(starts[runFirst]), runEnd, runFirst, i - runFirst});
    }
}

void foldLane(const Profile& profile, uint32_t track, uint32_t depth, TimeRange visible,
              double widthPx, double minEventPx, std::vector<LaneBlock>& out) {
    foldEvents(profile.startColumn(), profile.durations(), profile.eventsAt(track, depth), visible,
               widthPx, minEventPx, out);
}

uint32_t dominantKey(std::span<const uint32_t> keys, Durations durations, const LaneBlock& block,
                     uint32_t samples) {
    const uint32_t n = std::min(std::max<uint32_t>(1, samples), block.count);
    // A handful of (key, time) pairs: a linear scan beats a map.
    std::vector<std::pair<uint32_t, int64_t>> weight;
    weight.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        const EventIndex e = block.first + uint32_t(uint64_t(i) * block.count / n);
        const uint32_t key = keys[e];
        auto it = std::find_if(weight.begin(), weight.end(),
                               [key](const auto& w) { return w.first == key; });
        if (it == weight.end())
            weight.emplace_back(key, durations[e]);
        else
            it->second += durations[e];
    }
    auto best = weight.begin();
    for (auto it = weight.begin(); it != weight.end(); ++it)
        if (it->second > best->second) best = it;
    return best->first;
}

uint32_t dominantMetadata(const Profile& profile, const LaneBlock& block, uint32_t samples) {
    return dominantKey(profile.metadataColumn(), profile.durations(), block, samples);
}

} // namespace stepscope
