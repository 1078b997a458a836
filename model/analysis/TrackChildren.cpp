#include "model/analysis/TrackChildren.h"

namespace stepscope {

void TrackChildren::run(const Profile& p, uint32_t trackIndex, const std::vector<uint32_t>& opOf) {
    const Track& t = p.tracks()[trackIndex];
    const EventIndex base = t.firstEvent;
    parent_.assign(t.eventCount, kNotAnOp);
    opAncestor_.assign(t.eventCount, kNotAnOp);
    childPs_.assign(t.eventCount, 0);
    auto contains = [&](uint32_t outer, EventIndex inner) {
        const EventIndex o = base + outer;
        return p.start(o) <= p.start(inner) && p.end(inner) <= p.end(o);
    };
    // The nearest op at or above `local` that contains it: itself when it is an op.
    auto opAtOrAbove = [&](uint32_t local) {
        return opOf[local] != kNotAnOp ? local : opAncestor_[local];
    };
    for (uint32_t d = 1; d < t.depthCount; ++d) {
        const EventRange up = p.eventsAt(trackIndex, d - 1);
        const EventRange here = p.eventsAt(trackIndex, d);
        EventIndex j = up.begin;
        for (EventIndex e = here.begin; e < here.end; ++e) {
            const int64_t s = p.start(e), dur = p.duration(e);
            // The event above that the builder opened last before this one (ordered by start,
            // longer first): the one this event was stacked on.
            while (j + 1 < up.end &&
                   (p.start(j + 1) < s || (p.start(j + 1) == s && p.duration(j + 1) >= dur)))
                ++j;
            const uint32_t local = e - base;
            uint32_t above = j - base;
            parent_[local] = above;
            // Climb to the first event that wholly contains this one; everything above that
            // contains it too.
            while (above != kNotAnOp && !contains(above, e)) above = parent_[above];
            opAncestor_[local] = above == kNotAnOp ? kNotAnOp : opAtOrAbove(above);
            if (opOf[local] != kNotAnOp && opAncestor_[local] != kNotAnOp)
                childPs_[opAncestor_[local]] += dur;
        }
    }
}

} // namespace stepscope
