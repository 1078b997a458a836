#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/analysis/RunDiff.h"
#include "model/analysis/StepAnalysis.h"

namespace stepscope {

// One step of two runs as one profile, so that the trace viewer shows both on one time axis:
// every track of both runs (host threads with their ops, GPU streams, derived lines), with their
// stats, launch -> kernel flows and search, under one zoom.
//
// Which events of a run are taken: those that overlap its step's span [begin, begin + duration)
// (end > begin and start < begin + duration; a zero-length event at begin counts, as in
// Profile::eventsInWindow), on every host of the run (hosts of one run share one time base), plus
// the device events launched by a taken event (its launch -> device flows): the GPU runs behind
// the host, and RunDiff counts a kernel in the step its launch falls in, so a kernel that runs
// past the step's end still shows next to its launch.
//
// Times: the candidate is shifted so that both steps start at the same instant, stepBeginPs; the
// earliest taken event of either run starts at 0. The baseline's hosts come first, named
// "Baseline · <host>", then the candidate's, "Candidate · <host>"; planes and tracks keep their
// names and ids, so they classify as in their own profile. Every taken event keeps its metadata,
// stats and nesting, and launch -> device flows are joined again (by correlation id within each
// host) by ProfileBuilder::finish().
struct StackedRuns {
    std::shared_ptr<const Profile> profile; // null when cancelled
    int64_t stepBeginPs = 0;                // where both steps start in `profile`
    int64_t baseDurationPs = 0, candidateDurationPs = 0;
    uint32_t candidateFirstHost = 0; // hosts [0, this) are the baseline's, the rest the candidate's
    size_t baseEvents = 0, candidateEvents = 0; // events taken from each run
};

// Throws std::runtime_error when the result would not fit one profile (ProfileBuilder::error()).
StackedRuns stackRuns(const Profile& base, const StepRecord& baseStep, const Profile& candidate,
                      const StepRecord& candidateStep, const Progress* progress = nullptr);

// The events of a stacked profile that one row of the run diff stands for, so that picking a row
// lights that op up in both runs.
class StackedOpIndex {
public:
    explicit StackedOpIndex(const Profile& stacked);
    // An op row: the GPU stream events the diff counts in op `name` (OpCatalog's device rule, as
    // RunDiff counts them), and the host-plane events named `name` (a PyTorch cpu_op, a TF op's own
    // TraceMe). Empty when none.
    const std::vector<EventIndex>& opEvents(const std::string& name) const;
    // A kernel row: the GPU stream events named `name`.
    const std::vector<EventIndex>& kernelEvents(const std::string& name) const;
    // A host-op row: the host-plane events that are host op (kind, name) by HostOpCatalog's rule
    // (python_function events included: such a row exists only where the diff asked for them).
    const std::vector<EventIndex>& hostOpEvents(const std::string& kind,
                                                const std::string& name) const;

private:
    std::unordered_map<std::string, std::vector<EventIndex>> ops_, kernels_;
    std::unordered_map<std::string, std::vector<EventIndex>> hostOps_; // kind '\0' name
};

// The events of `runs` that the rows `diff` classes as slower stand for: op and kernel rows
// (StackedOpIndex::opEvents, kernelEvents) and host-op rows (hostOpEvents), each only on the hosts
// of its row's host pair, so that with several hosts an op is outlined where it got slower and
// not on the hosts where it did not. Hosts of `runs`: the baseline's in their order, then the
// candidate's from candidateFirstHost. Sorted, without repeats.
std::vector<EventIndex> slowerEvents(const StackedRuns& runs, const StackedOpIndex& index,
                                     const RunDiff& diff);

} // namespace stepscope
