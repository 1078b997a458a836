#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/DiffRow.h"

namespace stepscope {

// The run diff's host-op table: what ran on the CPU threads of two runs, op by op (HostOps.h says
// which events are host ops), step pair by step pair and host pair by host pair, as HTA's trace
// diff compares CPU operators per iteration (facebookresearch/HolisticTraceAnalysis,
// hta/trace_diff.py: TraceDiff.compare_traces and ops_diff), with the device tables' noise-aware
// verdict on top.
//
// A host op counts in the step its start falls in, [begin, begin + duration) of the aligned step
// (HTA's add_iteration in hta/common/trace.py: a CPU event belongs to ProfilerStep#N when
// s.ts <= e.ts < s.ts + s.dur), on every host thread of the host pair's host.
// Per op and run: calls, total time (the events' durations) and self time (total minus the time of
// its child host ops on the same thread, TrackChildren's rule, which the TF op stats' host side
// uses too: a cpu_op's child ops and runtime calls are not its own time).
// Verdict: two samples per row, one value per step pair each: the calls, and the self time. Both
// are tested as the device tables' rows are (DiffRow.h: rank test, interval, Benjamini-Hochberg
// over the table, calls and self-time tests together as one family, the practical floor). Class:
//   added / removed       the op has calls in one run only (HTA: added / deleted)
//   more / fewer calls    the calls per step moved, significantly and by the floor or more (HTA:
//                         increased / decreased, from one iteration's counts)
//   slower / faster       the calls did not move, the self time did
//   inconclusive          calls or self time moved by the floor or more without an interval (one
//                         step each, or too few steps): never a guess
//   unchanged             otherwise; also an op with no self time in one run, for no relative
//                         change is known (then inconclusive when it cannot be tested)
// Self time, not total time, is tested: a slower leaf op would otherwise make every op around it
// (its module, ProfilerStep#*) "slower" as well, and the findings would name the outermost.
struct HostOpRow {
    // The row: host label, type = the op's kind, name; sides: count = calls, totalPs = self time,
    // perStepUs = self time per step pair. diffClass and evidence are the row's verdict (evidence
    // of the calls test when the class is about calls: added, removed, more / fewer calls, or
    // inconclusive calls).
    DiffRow self;
    // Calls per step pair as the test's sample (perStepUs = calls; totalPs = calls x 10^6, so
    // that the verdict's per-step arithmetic reads calls where it reads µs), with its own test.
    DiffRow calls;
    int64_t baseTotalPs = 0, candidateTotalPs = 0; // inclusive time
};

// One step of one run: [begin, end), and its pair's index within the host pair, or kNotCompared
// for a step the pairing or the step range left out (what starts in it counts nowhere).
inline constexpr size_t kNotCompared = SIZE_MAX;
struct StepSpan {
    int64_t begin = 0, end = 0;
    size_t pair = 0;
};
// The span holding time t, or null. `spans` sorted by begin, not overlapping.
const StepSpan* stepSpanAt(const std::vector<StepSpan>& spans, int64_t t);

// Gathers both runs' host ops, host pair by host pair, then classes them.
class HostOpTally {
public:
    explicit HostOpTally(bool pythonFunctions)
        : pythonFunctions_(pythonFunctions) {}
    // Adds the host ops of `host` (Profile::hosts() index) of one run that start inside one of
    // the compared `spans`, to the rows of the host pair `hostLabel` with `pairs` step pairs.
    // False if cancelled.
    bool add(const Profile& p, uint32_t host, const std::string& hostLabel, size_t pairs,
             const std::vector<StepSpan>& spans, bool isBase, const Progress* progress);
    // The rows, classed (see above) and sorted by the change of their self time.
    std::vector<HostOpRow> finish(double confidence, double minChangePercent);

private:
    // The index of the row (host, kind, name), made when new.
    size_t row(const std::string& host, size_t pairs, const std::string& kind,
               const std::string& name);

    bool pythonFunctions_;
    std::vector<HostOpRow> rows_;
    std::unordered_map<std::string, size_t> index_; // host '\0' kind '\0' name -> row
};

// The table as the diff page and `stepscope-cli diff --by host_op` show it. Columns: [Host,]
// Kind, Operation, Class, Evidence, Baseline calls, Candidate calls, Baseline total (µs),
// Candidate total (µs), Baseline self (µs), Candidate self (µs), Delta self (µs), Ratio (of self
// times), Shift per step (µs), Shift low (µs), Shift high (µs), Change (%), p-value, Adjusted p
// (the self-time test), Calls shift per step, Calls adjusted p.
Table hostOpTable(const std::vector<HostOpRow>& rows, bool withHost, double confidence);

} // namespace stepscope
