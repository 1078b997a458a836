#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/OpName.h"
#include "model/analysis/PieSlice.h"
#include "model/analysis/Precision.h"

namespace stepscope {

// Framework ("TensorFlow") op stats, as XProf's tf_stats tool defines them
// (xprof/convert/xplane_to_op_metrics_db.cc, xprof/utils/op_metrics_db_utils.cc,
// xprof/convert/op_stats_to_tf_stats.cc; their tests xplane_to_op_metrics_db_test.cc and
// op_stats_to_tf_stats_test.cc are reproduced in tests/test_op_stats.cpp), host and device side
// by side.
//
// Which events are ops: see OpCatalog (OpName.h).
// - Host: events on the non-derived lines of host planes.
// - Device: every event of the device op lines (Track::deviceOps: the GPU streams, never the
//   derived "TensorFlow Ops" line, which repeats them; on TPUs the "XLA Ops" line). An event with
//   no framework op (a copy, a kernel no op claims) is a row of its own, named by the event, of
//   type "Unknown", so every device event's time lands in exactly one row. XProf drops such GPU
//   events from its rows (their time shows only as IDLE); this is Stepscope's departure.
// Times:
// - total time: sum of the op's event durations.
// - self time: total time minus the time of its child ops, the op events that lie wholly inside
//   it on the same line with no op between (non-op events in between are transparent). An event
//   that only partly overlaps an op (the builder stacks it one lane deeper) is not its child and
//   takes nothing from it. On GPU streams events do not nest, so device self time equals total
//   time, as in XProf (its GPU device ops have no children); TPU op lines nest (fusions).
// - occurrences: host, the op's events; device, the op's calls as XProf counts them: the largest
//   event count among the op's device ops (one device op = the op with one kernel or copy name),
//   summed over devices. An op that runs two kernels per call shows 2 occurrences for 2 calls.
// - idle, as XProf: host, per host line, the span from its first op's start to its last op's end
//   minus the line's summed op self time; device, per device, the span of its op lines' events
//   (GPU: all stream events; TPU: its op lines and its "Steps" line) minus its summed op self
//   time. Each is clamped at zero (XProf's total time is the larger of the span and the op time)
//   and then summed over lines / devices. Where a device's streams overlap, the summed op time
//   can pass the span and idle reads zero: this is XProf's idle, not the time no stream was busy
//   (the overview's GPU time gives that one).
// - self-time % and cumulative self-time % are per side: rows of a side are sorted by self time
//   (descending), shares are of that side's total self time, which includes IDLE when idle is
//   included.
// - TensorCore utilization (device rows, GPU profiles only): the share of the op's kernel time
//   spent in kernels that use Tensor Cores (XProf's "GPU TensorCore utilization"); empty for ops
//   that ran no kernel. Tensor Core use and precision of each kernel: KernelFacts.
// - Precision (device rows, GPU profiles only): the precision holding most of the op's kernel
//   time, with its share when other precisions hold more than 1% ("bf16 (62%)"); empty for ops
//   that ran no kernel.
enum class OpSide : uint8_t { Device, Host };

struct TfOpStatsRow {
    OpSide side = OpSide::Host;
    uint32_t op = 0; // into TfOpStats::ops
    uint64_t occurrences = 0;
    int64_t totalPs = 0;
    int64_t selfPs = 0;
    int64_t kernelPs = 0;             // device: time of its events that are kernels
    int64_t tensorCoreKernelPs = 0;   // device: of which in kernels that use Tensor Cores
    EventIndex longest = kNoIndex;    // the op's longest event (the earliest of equals)
    int64_t noTensorCoreKernelPs = 0; // device: kernel time known NOT to use Tensor Cores
    std::array<int64_t, kPrecisionCount> precisionPs{}; // device: kernel time by Precision
};

struct TfOpStats {
    std::vector<OpIdentity> ops;
    std::vector<TfOpStatsRow> rows; // one per (side, op) met; unsorted
    int64_t hostIdlePs = 0;
    int64_t deviceIdlePs = 0;
    bool hasHost = false;   // some host op was found
    bool hasDevice = false; // some device op was found
    bool hasGpu = false;    // some device op ran on a GPU (the TensorCore column applies)
    // HLO modules that could not be decoded (HloCatalog::errors()): their events are named by
    // hlo_op alone, without op paths or command-buffer attribution.
    std::vector<std::string> hloErrors;
};

// Returns an empty result if cancelled.
// `hlo`: the profile's HLO catalog where the caller has one; made here when null.
TfOpStats computeTfOpStats(const Profile& profile, const Progress* progress = nullptr,
                           const HloCatalog* hlo = nullptr);

// The op table the tool shows and exports. Columns: Host/device, Type, Operation,
// #Occurrences, Total time (µs), Avg. time (µs), Total self-time (µs), Avg. self-time (µs),
// Total self-time (%), Cumulative total self-time (%), and TensorCore utilization (%) when
// hasGpu. Device rows first, then host rows; each side sorted by self time, descending (ties:
// total time, then name), with its "IDLE" row when includeIdle (occurrences 0, averages empty).
Table tfOpStatsTable(const TfOpStats& stats, bool includeIdle);

// Self time per op (label: op name) or per op type on one side, largest first, with an "IDLE"
// slice when includeIdle. Empty when the side has no ops.
enum class OpGrouping : uint8_t { ByOp, ByType };
PieData tfOpStatsPie(const TfOpStats& stats, OpSide side, OpGrouping grouping, bool includeIdle);

// The "by op" pie as the tool draws it, for profiles of many small ops (BERT's 1356 device ops,
// none above 1% of the self time, left 96% of a top-7 pie in one *Other* slice): the `topOps`
// ops with the most self time, one slice each; the other ops folded by their type, one slice per
// type ("Cast (510 more ops of this type)", legend "510 Cast ops"), for the `topTypes` types with
// the most remaining time; the rest one last slice ("Other (37 ops of 6 types)", legend "37 other
// ops"); IDLE its own slice when includeIdle. A fold of a
// single op is shown as that op. Every slice says how many ops it holds (PieSlice::items). Largest
// first (ties by label). Op slices are keyed by name, as in tfOpStatsPie(ByOp), and take the type
// of their first row. This folding is Stepscope's: XProf's pies draw every op and leave slices
// too small to see unlabelled.
PieData tfOpStatsTopOpsPie(const TfOpStats& stats, OpSide side, bool includeIdle, size_t topOps = 3,
                           size_t topTypes = 3);

// The row of `stats` for the op (side, type, name) as the table shows it; null when none (IDLE).
const TfOpStatsRow* findTfOpStatsRow(const TfOpStats& stats, OpSide side, std::string_view type,
                                     std::string_view name);

// The op whose row an event's time counts in, by the rules above (host events: the op the
// event is; device op events: their framework op, else their own name as an "Unknown" op);
// nullopt for events the tool counts nowhere (host runtime events, other lines). `hlo`: the
// profile's HLO catalog (made once by the caller), null where it has none.
std::optional<OpIdentity> tfOpOfEvent(const Profile& profile, EventIndex event,
                                      const HloCatalog* hlo);

// Whether the profile has any op the tool would show (for the Tool selector); cheap.
bool hasTfOpStats(const Profile& profile);

} // namespace stepscope
