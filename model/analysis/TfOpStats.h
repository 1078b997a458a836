#pragma once

#include <cstdint>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/OpName.h"
#include "model/analysis/PieSlice.h"

namespace stepscope {

// Framework ("TensorFlow") op stats, as the TensorFlow Profiler's tf_stats tool defines them,
// host and device side by side.
//
// Which events are ops:
// - Host: events on host-thread lines whose own name is a framework op (isHostOpName():
//   "scope/name:Type", tf.data "Iterator::..."). Runtime events (ExecutorState::Process,
//   MemoryAllocation, cudaLaunchKernel, kernel-launch records, Python frames) are not ops, and
//   neither are runtime events that merely carry a `tf_op` stat, so no op is counted twice.
// - Device: events on NON-derived lines of GPU/TPU planes (streams) attributed to an op through
//   their framework op (OpCatalog::deviceOp: `tf_op`/`level 0`, JAX `name`, `hlo_op`). The
//   derived "TensorFlow Ops"/"Framework Ops" lines are not read: they repeat the stream events
//   and are missing from raw JAX profiles. Device events with no op are not counted as ops.
// Times:
// - total time: sum of the op's event durations; occurrences: its events (on the device, one
//   per kernel or copy the op ran).
// - self time: total time minus the time of its child ops, i.e. op events nested deeper on the
//   same line whose nearest enclosing op it is (non-op events in between are transparent).
// - idle (per side): host = for each host thread, the span from its first op's start to its last
//   op's end minus the time covered by ops; device = for each device plane, the span from its
//   first to its last stream event minus the time covered by any stream event (a kernel or copy
//   no op claims is busy, not idle). Summed over threads / planes.
// - self-time % and cumulative self-time % are computed per side: rows of a side are sorted by
//   self time (descending), shares are of that side's total self time, which includes IDLE when
//   idle is included.
enum class OpSide : uint8_t { Device, Host };

struct TfOpStatsRow {
    OpSide side = OpSide::Host;
    uint32_t op = 0; // into TfOpStats::ops
    uint64_t occurrences = 0;
    int64_t totalPs = 0;
    int64_t selfPs = 0;
};

struct TfOpStats {
    std::vector<OpIdentity> ops;
    std::vector<TfOpStatsRow> rows; // one per (side, op) met; unsorted
    int64_t hostIdlePs = 0;
    int64_t deviceIdlePs = 0;
    bool hasHost = false;   // some host op was found
    bool hasDevice = false; // some device op was found
};

// Returns an empty result if cancelled.
TfOpStats computeTfOpStats(const Profile& profile, const Progress* progress = nullptr);

// The op table the tool shows and exports. Columns: Host/device, Type, Operation,
// #Occurrences, Total time (µs), Avg. time (µs), Total self-time (µs), Avg. self-time (µs),
// Total self-time (%), Cumulative total self-time (%). Device rows first, then host rows; each
// side sorted by self time, descending (ties: total time, then name), with its "IDLE" row when
// includeIdle (occurrences 0, averages empty).
Table tfOpStatsTable(const TfOpStats& stats, bool includeIdle);

// Self time per op (label: op name) or per op type on one side, largest first, with an "IDLE"
// slice when includeIdle. Empty when the side has no ops.
enum class OpGrouping : uint8_t { ByOp, ByType };
PieData tfOpStatsPie(const TfOpStats& stats, OpSide side, OpGrouping grouping, bool includeIdle);

// Whether the profile has any op the tool would show (for the Tool selector); cheap.
bool hasTfOpStats(const Profile& profile);

} // namespace stepscope
