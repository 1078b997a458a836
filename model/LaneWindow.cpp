#include "model/LaneWindow.h"

#include <algorithm>

namespace stepscope {

EventRange eventsOverlapping(Starts starts, Durations durations, EventRange lane, int64_t t0,
                             int64_t t1) {
    if (lane.empty() || t1 < t0) return {lane.begin, lane.begin};
    auto end = [&](EventIndex e) { return starts[e] + durations[e]; };
    EventIndex lo = lane.begin, hi = lane.end;
    while (lo < hi) {
        const EventIndex mid = lo + (hi - lo) / 2;
        if (end(mid) < t0 || (end(mid) == t0 && durations[mid] > 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    const EventIndex first = lo;
    EventIndex stop = firstStartingAt(starts, first, lane.end, t1);
    // A zero-length window still holds the zero-length events at its instant.
    if (t1 == t0)
        while (stop < lane.end && starts[stop] == t0) ++stop;
    return {first, std::max(first, stop)};
}

} // namespace stepscope
