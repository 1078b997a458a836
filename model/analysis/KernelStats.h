#pragma once

#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/PieSlice.h"

namespace stepscope {

// GPU kernel stats, as XProf's "GPU kernel stats" tool defines them
// (xprof/convert/xplane_to_kernel_stats_db.cc, xprof/utils/kernel_stats_utils.cc).
//
// Input: every event on a device op line (Track::deviceOps: the GPU streams, never derived lines)
// that has kernel details (Profile::kernels(); all three kernel_details spellings) and lasts at
// least one whole nanosecond (XProf skips events whose DurationNs() is 0).
// One row per distinct (kernel name, op name, launch configuration): like XProf, launches of one
// kernel for one op with different grid/block/registers/shared memory are separate rows.
// Op name: the event's framework op name without its type (see OpCatalog for the precedence:
// `tf_op`, then the older `level 0`, then for JAX's "XlaModule:" annotation the `name` stat, then
// `hlo_op`); empty when the event has none. XProf reads `tf_op` only, so for JAX profiles it
// names every kernel's op "XlaModule"; Stepscope's fallbacks are its own. Tensor Core use and
// precision: KernelFacts (Yes / No / Unknown, and the precision with its evidence); as in XProf
// an op whose kernel uses Tensor Cores is eligible, and an op without a name never is.
// A kernel whose profile records no launch geometry (ROCm Kineto traces) keeps its row, with
// empty geometry cells; rows differ by precision and its evidence too.
// Rows are sorted by total duration, descending (ties: kernel name, op name); all rows are kept
// (XProf keeps the top 1000).
inline constexpr const char* kKernelUsesTensorCoreColumn = "Kernel uses TensorCore";
inline constexpr const char* kPrecisionColumn = "Precision";
inline constexpr const char* kPrecisionSourceColumn = "Precision from";

struct KernelStats {
    // Columns: Rank, Kernel name, Registers per thread, Shared memory (bytes), Block dim,
    // Grid dim, [Theoretical occupancy %, only when some kernel reports one; NaN where absent],
    // Op is TensorCore eligible, Kernel uses TensorCore (1, 0, NaN for unknown), Precision,
    // Precision from, Op name, Occurrences, Total duration (µs), Avg duration (µs),
    // Min duration (µs), Max duration (µs). Registers and shared memory are NaN, the dims empty,
    // where the profile does not record them.
    Table table;
    // Per table row: the longest instance (first of equals), for "show in trace viewer".
    std::vector<EventIndex> longestInstance;
    uint64_t kernelEvents = 0; // sum of occurrences
};

// Returns an empty result (no rows) if cancelled.
KernelStats computeKernelStats(const Profile& profile, const Progress* progress = nullptr);

// How the kernel table groups launches. XProf's rows are (kernel, op, launch configuration);
// coarser groupings bring the few kernels that matter up when one kernel runs with many
// configurations (1330 rows of one launch each on the BERT profile).
enum class KernelGrouping : uint8_t { Kernel, KernelOp, KernelOpConfiguration };

// The table of `stats` (KernelOpConfiguration, as computed) regrouped. Kernel: a row per kernel
// name; KernelOp: per (kernel, op). Columns: Rank, Kernel name, [Op name,] Kernel uses
// TensorCore, Precision ("mixed" where the merged rows differ; a Tensor Core answer that differs
// reads Unknown), [Op is TensorCore eligible,] Launch configurations (rows merged), Occurrences,
// Total / Avg / Min / Max duration (µs), summed from the exact picosecond values; the longest
// instance is the one of the merged row with the longest maximum (the first in the full table's
// order among equals). Sorted by total, descending (ties: kernel name, op name).
// KernelOpConfiguration returns `stats` unchanged.
KernelStats groupKernelStats(const KernelStats& stats, KernelGrouping grouping);

// Total kernel time per kernel name (summed over ops and launch configurations), largest first.
PieData kernelTimeByName(const KernelStats& stats);

// A kernel's name as a legend can hold it: no return type, no parameter list, template
// arguments folded to <…>, and only the last namespace component. "void Eigen::internal::
// EigenMetaKernel<Eigen::TensorEvaluator<...>, long>(...)" becomes "EigenMetaKernel<…>".
std::string shortKernelName(std::string_view name);

// Whether the profile has any kernel the tool would show (for the Tool selector).
bool hasKernelStats(const Profile& profile);

} // namespace stepscope
