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
// name. Columns: Name, Count, Total (µs, whole durations), Average (µs), Share of range (%: the
// part of their time inside the range, over the range's length; above 100% where lanes run in
// parallel). Rows by total, longest first. Returns an empty table when cancelled.
Table aggregateSelection(const Profile& profile, const std::vector<Lane>& lanes, TimeRange range,
                         const Progress* progress = nullptr);

// How many events such a selection holds (a sum of window sizes, no event is visited).
uint64_t countSelection(const Profile& profile, const std::vector<Lane>& lanes, TimeRange range);

} // namespace stepscope
