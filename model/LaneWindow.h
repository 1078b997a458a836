#pragma once

#include <cstdint>

#include "model/Profile.h"

namespace stepscope {

// The events of `lane` that overlap [t0, t1): end > t0 and start < t1, zero-length events at t0
// counting as inside. `lane` indexes columns of starts and durations in which its events never
// overlap, so both starts and ends are sorted and the window is two binary searches. Any lane
// stored so uses it: a profile's (track, depth) (Profile::eventsInWindow), or an analysis' own
// columns (StepLanes).
EventRange eventsOverlapping(Starts starts, Durations durations, EventRange lane, int64_t t0,
                             int64_t t1);

} // namespace stepscope
