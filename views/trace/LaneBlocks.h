#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/Profile.h"
#include "views/trace/ZoomControl.h"

namespace stepscope {

// What the timeline draws for one lane: an event, or a run of events too narrow to tell apart
// folded into one block.
struct LaneBlock {
    double x0 = 0, x1 = 0; // pixels from the canvas' left edge; may reach past either edge
    EventIndex first = 0;  // the event, or the first event of the run
    uint32_t count = 1;    // events held: first .. first + count - 1 (one lane, in start order)
    bool merged() const { return count > 1; }
};

// Folds the events of `lane` that overlap `visible` into blocks for a canvas `widthPx` wide.
// `lane` indexes columns of starts and durations in which its events never overlap (a profile's
// (track, depth), or any lane stored so; block indexes are into the same columns). An event at
// least `minEventPx` wide is its own block. A narrower one starts a run that swallows every
// event starting in the same pixel column (found with a binary search on the start column, never
// by walking them), and goes on into the next columns while the next event is narrow too and
// starts less than a pixel after the run. So a lane costs O(pixels x log events) however many
// events it holds. Appends to `out`.
void foldEvents(Starts starts, Durations durations, EventRange lane, TimeRange visible,
                double widthPx, double minEventPx, std::vector<LaneBlock>& out);
// foldEvents() over the profile's lane (track, depth).
void foldLane(const Profile& profile, uint32_t track, uint32_t depth, TimeRange visible,
              double widthPx, double minEventPx, std::vector<LaneBlock>& out);

// The key (an event name, an op) that takes most of a folded block's time, judged on at most
// `samples` of its events spread evenly over it (all of them when it holds fewer), weighted by
// duration; ties go to the earlier event. `keys` and `durations` are columns indexed like the
// block. Costs O(samples), however many events it holds.
uint32_t dominantKey(std::span<const uint32_t> keys, Durations durations, const LaneBlock& block,
                     uint32_t samples = 16);
// The metadata (event name) that takes most of a folded block's time (dominantKey). The
// timeline colours a folded block by it, so a fitted GPU stream still shows which kernels fill
// it.
uint32_t dominantMetadata(const Profile& profile, const LaneBlock& block, uint32_t samples = 16);

} // namespace stepscope
