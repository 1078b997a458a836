#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/analysis/Overview.h"
#include "model/analysis/RunDiff.h"

namespace stepscope {

// What changed in the candidate against the baseline, as findings for the candidate's overview
// (tool ToolId::RunDiff, value: the change in % of the baseline's mean per-step time, or µs per
// step for added / removed rows). Only verdicts: significant changes and added / removed rows,
// never a move within noise. In order:
//   diff_step_time      "Step time 8.1% slower than the baseline in every step (+50 µs per step;
//                        95% interval +8.1% to +8.1%)." (high when slower, else info)
//   diff_op_*, diff_kernel_*  the first `maxRows` op rows and kernel rows (largest change first)
//                        that were added, removed, got slower or faster: "Op X added (50 µs per
//                        step).", "Kernel K 20.0% slower than the baseline in every step (...)."
//                        ("in N of M steps" when not every pair moved that way); moderate, faster
//                        ones info
//   diff_host_op_*       the first `maxRows` host op rows that were added, removed, called more or
//                        fewer times, got slower or faster (self time): "Host op CatBackward0
//                        added (1 call and 11 µs per step).", "Host op X called more often than
//                        the baseline in every step (2 -> 3 calls per step).", "Host op X (self
//                        time) 20.0% slower than the baseline in every step (...)."
//   diff_inconclusive    the rows of every table (step breakdown categories but the step time,
//                        ops, kernels, host ops) that moved by the practical floor or more while no
//                        interval tells that from noise (one step each, or too few steps): how
//                        many, per table, the largest (by time) named; the step time says the
//                        same of itself (info)
//   the callouts         diff_tensor_core / diff_precision (moderate when use dropped, else info)
// Names longer than 80 characters (C++ kernel names) are cut with "…". Empty when nothing
// changed.
std::vector<Recommendation> runDiffFindings(const RunDiff& diff, size_t maxRows = 3);

// The findings' sentences (the diff page and `stepscope-cli diff`).
std::vector<std::string> runDiffSummary(const RunDiff& diff);

} // namespace stepscope
