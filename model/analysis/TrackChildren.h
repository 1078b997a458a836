#pragma once

#include <cstdint>
#include <vector>

#include "model/Profile.h"

namespace stepscope {

// The time of each op event's child ops on one track, for self time (op stats' host side, the run
// diff's host ops). `opOf[i]` says whether the track's i-th event is an op: any value but kNotAnOp.
// A child op lies wholly inside its parent op, with only non-op events (or none) between them; an
// event that merely overlaps the event above it (the builder stacks such an event one lane deeper)
// is no child of it. Fills childPs(i) for every op event.
class TrackChildren {
public:
    static constexpr uint32_t kNotAnOp = 0xFFFFFFFFu; // OpCatalog::kNoOp

    void run(const Profile& p, uint32_t trackIndex, const std::vector<uint32_t>& opOf);
    int64_t childPs(uint32_t local) const { return childPs_[local]; }

private:
    std::vector<uint32_t> parent_;     // event stacked on (track-local index) or kNotAnOp
    std::vector<uint32_t> opAncestor_; // nearest op that wholly contains it, or kNotAnOp
    std::vector<int64_t> childPs_;     // time of child ops, per op event
};

} // namespace stepscope
