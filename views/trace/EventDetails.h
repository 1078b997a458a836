#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/HloCatalog.h"

namespace stepscope {

struct DetailField {
    std::string label;
    std::string value;
};

// Everything the details pane shows for one event, as text, so that the pane is a plain view
// and the content can be tested without widgets.
struct EventDetails {
    std::string name;
    std::vector<DetailField> fields;  // track, start, duration, self time, device facts
    std::vector<DetailField> stats;   // every stat: the event's own, then its metadata's
    std::vector<EventIndex> launches; // host launches that caused this device event
    std::vector<EventIndex> targets;  // device events this host launch caused
};

// Self time as Chrome's trace viewer and Perfetto define a slice's: its duration minus the time
// covered by its direct children, the events one level deeper on the same track. The model also
// puts an event one level deeper when it overlaps an event without nesting in it, so only the
// part of each such event inside this one counts (children of one level never overlap each
// other, so the parts add up without double counting).
int64_t selfTime(const Profile& profile, EventIndex e);

// The details of one event. With `hlo` (the profile's HLO catalog), a device event also shows the
// HLO instruction it ran for: name and opcode, module, op path, source line and precision where
// the HLO records them, and whether it was found by aligning a command buffer launch. An event
// with `cuda_graph_id` shows the CUDA graph launch it belongs to: graph id, correlation id and
// the host launch event (Profile::launchesOf) where the profile recorded it.
EventDetails describeEvent(const Profile& profile, EventIndex e, const std::string& trackLabel,
                           const HloCatalog* hlo = nullptr);

} // namespace stepscope
