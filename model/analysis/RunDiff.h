#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/analysis/DiffRow.h"
#include "model/analysis/HostOpDiff.h"
#include "model/analysis/ShiftTest.h"
#include "model/analysis/StepAnalysis.h"
#include "model/analysis/StepPairing.h"

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

// What diffRuns compares and how: the step pairing (StepPairing.h) and the verdict's settings.
struct RunDiffOptions : StepPairingOptions {
    double confidence = 0.95;
    // Practical floor: a change smaller than this share of the baseline's mean per-step time is
    // "unchanged" even when significant (without a noise estimate: "unchanged" below it,
    // "inconclusive" above).
    double minChangePercent = 1.0;
    HostMatching hosts = HostMatching::Auto;
    // Host ops: PyTorch's python_function events too (HostOps.h).
    bool pythonFunctions = false;
};

// A Tensor Core or precision change, in plain words. id: "diff_tensor_core" or "diff_precision";
// points: the candidate's share minus the baseline's, in percentage points (> 0: it rose).
struct DiffCallout {
    std::string id;
    double points = 0;
    std::string text;
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

// Compares `candidate` with `base`, host pair by host pair (steps paired within each host pair,
// work counted on the host pair's GPUs only). Returns an empty result (no pairs) if cancelled.
RunDiff diffRuns(const Profile& base, const Profile& candidate, const RunDiffOptions& options,
                 const Progress* progress = nullptr);

} // namespace stepscope
