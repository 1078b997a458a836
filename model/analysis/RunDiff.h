#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/DiffRow.h"
#include "model/analysis/HostOpDiff.h"
#include "model/analysis/Overview.h"
#include "model/analysis/ShiftTest.h"
#include "model/analysis/StepAnalysis.h"

namespace stepscope {

// Two runs compared: which step of the candidate goes with which step of the baseline, and per
// step-breakdown category, per framework op, per GPU kernel and per host op, how the time per
// step moved and whether that move stands out of the step-to-step noise.
//
// Steps: each run's steps as StepAnalysis finds them (analyzeSteps). A run without steps counts
// as one "step" spanning the whole profile (then no noise estimate is possible).
// Work of a step: the GPU stream events (Track::deviceOps on GPU planes) whose host launch
// (the launch -> device flow, by correlation id) starts inside the step's span [begin, begin +
// duration), on every GPU of the profile; an event without a recorded launch, or whose launch lies
// outside every step of the run, counts in the step its own start falls in. The GPU runs behind
// the host, so a kernel launched late in step N often runs in step N + 1's span: counting it by its
// own start would move it a step. Work launched in a step that is not compared (left out by the
// pairing or by the step range) counts nowhere.
// Rows:
//   category  StepCategory of StepAnalysis, plus "Step time"; per-step value = that category's
//             time in the step. When both runs are PyTorch profiles, the PyTorch TensorBoard
//             plugin's step breakdown instead, as their overview shows it (TorchOverview: Kernel,
//             Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec, Other, and the
//             plugin's step time), over the step pairs whose steps both runs' plugin steps hold
//             (matched by host and the N of ProfilerStep#N)
//   op        the framework op an event counts in, as the TF op stats' device side names it
//             (OpCatalog: tf_op / level 0 / JAX name / hlo_op; device work without an op is a row
//             named by the kernel or copy, type "Unknown"); per-step value = summed duration.
//             Self time equals total time on GPU streams (no nesting; XProf's rule), so it is not
//             a column of its own.
//   kernel    kernel name + launch configuration (grid, block, registers, shared memory), events
//             with kernel details only; per-step value = summed duration
//   host op   what ran on the host threads (HostOpDiff.h): calls, total and self time, the
//             verdict on calls and on self time per step
// Rows are sorted by the size of the change of their totals, then by their larger total.
// Class: added (only the candidate has it), removed (only the baseline), else slower / faster /
// unchanged from the verdict below.
enum class StepAlignment : uint8_t {
    Auto,     // by order; shifted by up to kMaxAutoShift steps when that pairs far closer steps
              // than the step-to-step noise explains (see pairSteps)
    ByOrder,  // the i-th baseline step with the (i + shift)-th candidate step
    ByNumber, // baseline step number s with candidate step number s + shift
};
inline constexpr int kMaxAutoShift = 2;

// Hosts (ranks) of the two runs, paired and compared pair by pair, never summed: each host pair
// has its own steps (StepRecord::host), its own step pairing and its own rows.
enum class HostMatching : uint8_t {
    Auto,    // by name when the runs share a host name, else by order
    ByName,  // hosts of the same name (Host::name); a host without a namesake is left out
    ByOrder, // the i-th host of the baseline with the i-th of the candidate (Profile::hosts())
};

enum class DiffBy : uint8_t { Category, Op, Kernel, HostOp };

struct RunDiffOptions {
    StepAlignment alignment = StepAlignment::Auto;
    int shift = 0; // ByOrder / ByNumber
    // Baseline step numbers to compare, inclusive; unset = no bound.
    std::optional<int64_t> firstStep, lastStep;
    double confidence = 0.95;
    // Practical floor: a change smaller than this share of the baseline's mean per-step time is
    // "unchanged" even when significant (without a noise estimate: "unchanged" below it,
    // "inconclusive" above).
    double minChangePercent = 1.0;
    HostMatching hosts = HostMatching::Auto;
    // Host ops: PyTorch's python_function events too (HostOps.h).
    bool pythonFunctions = false;
};

struct StepPairing {
    StepAlignment alignment = StepAlignment::ByOrder; // what was used (Auto resolves to ByOrder)
    int shift = 0;
    std::vector<std::pair<size_t, size_t>> pairs; // indices into base / candidate steps
    std::string explanation;                      // one sentence for the user
};

// A Tensor Core or precision change, in plain words. id: "diff_tensor_core" or "diff_precision";
// points: the candidate's share minus the baseline's, in percentage points (> 0: it rose).
struct DiffCallout {
    std::string id;
    double points = 0;
    std::string text;
};

// One pair of hosts compared; its step pairs are pairing.pairs[firstPair, firstPair + pairCount).
struct HostPair {
    uint32_t base = 0, candidate = 0; // Profile::hosts() indices
    std::string label; // "name", or "baseline name / candidate name" when they differ
    size_t firstPair = 0, pairCount = 0;
};

struct RunDiff {
    StepAnalysis baseSteps, candidateSteps;
    HostMatching hostMatching = HostMatching::ByOrder; // what was used (Auto resolved)
    std::vector<HostPair> hostPairs;
    std::string hostExplanation; // how the hosts were paired; empty with one host each
    bool wholeProfiles = false;  // a run had no steps: each run counted as one step
    StepPairing pairing;         // all host pairs' step pairs, host pair by host pair
    double confidence = 0.95, minChangePercent = 1.0;
    std::vector<DiffRow> categories, ops, kernels; // categories: "Step time" first
    bool torchCategories = false; // categories are the PyTorch plugin's (both runs PyTorch)
    std::vector<HostOpRow> hostOps;
    std::vector<DiffCallout> callouts;
};

// The pairing of two runs' steps (options: alignment, shift, step range). Auto: by order, with the
// shift k in [-kMaxAutoShift, kMaxAutoShift] (at least half of the shorter run paired) whose
// pairs have the smallest mean L1 distance of their step breakdowns, taken only when that is
// below the unshifted mean and each of the |k| unshifted pairs that hold the steps it leaves out
// (the first |k|) is more than 3 times the median unshifted pair distance (the step-to-step
// noise) apart: a warm-up step is far from every other step, a lucky match of jitter is not.
StepPairing pairSteps(const StepAnalysis& base, const StepAnalysis& candidate,
                      const RunDiffOptions& options);

// The hosts of the two runs paired (options.hosts); labels set, step pairs not yet.
std::vector<HostPair> pairHosts(const Profile& base, const Profile& candidate, HostMatching how,
                                HostMatching* used = nullptr);

// Compares `candidate` with `base`, host pair by host pair (steps paired within each host pair,
// work counted on the host pair's GPUs only). Returns an empty result (no pairs) if cancelled.
RunDiff diffRuns(const Profile& base, const Profile& candidate, const RunDiffOptions& options,
                 const Progress* progress = nullptr);

// The rows of one table as the diff page and `stepscope-cli diff --csv` show them. Columns:
// [Type | Launch configuration,] Name, Class, Evidence, Baseline count, Candidate count,
// Baseline total (µs), Candidate total (µs), Delta total (µs), Ratio, Baseline avg (µs),
// Candidate avg (µs), Shift per step (µs), Shift low (µs), Shift high (µs), Shift (%), p-value,
// then Tensor Core columns (op: baseline / candidate TC %, kernel: uses TC). HostOp: hostOpTable.
Table runDiffTable(const RunDiff& diff, DiffBy by);

// What changed in the candidate against the baseline, as findings for the candidate's overview
// (tool "run_diff", value: the change in % of the baseline's mean per-step time, or µs per step
// for added / removed rows). Only verdicts: significant changes and added / removed rows, never a
// move within noise. In order:
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
