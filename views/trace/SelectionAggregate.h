#pragma once

#include <cstdint>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "views/trace/ZoomControl.h"

namespace stepscope {

struct Lane {
    uint32_t track = 0;
    uint32_t depth = 0;
    bool operator==(const Lane&) const = default;
};

// What a box or range selection holds: the events of `lanes` that overlap `range`, grouped by
// track and name. Columns: Side (Device or Host), Track ("/device:GPU:0 · Stream #7 (Compute)"),
// Name, Count, Total (µs: whole durations), Average (µs), Share of range (%): the part of the
// range during which an event of that name runs on that track (the union of their intervals
// inside the range, so nested or overlapping events count once), over the range's length; it
// cannot pass 100%. Rows grouped by track in the order of `lanes` (the timeline's: devices,
// then host threads), within a track by total, longest first (ties: name). Returns an empty
// table when cancelled.
Table aggregateSelection(const Profile& profile, const std::vector<Lane>& lanes, TimeRange range,
                         const Progress* progress = nullptr);

// How many events such a selection holds (a sum of window sizes, no event is visited).
uint64_t countSelection(const Profile& profile, const std::vector<Lane>& lanes, TimeRange range);

} // namespace stepscope
