#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/LogDir.h"
#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/PytorchDistributed.h"
#include "model/analysis/StepAnalysis.h"

namespace stepscope {

// The pod viewer: the same training steps side by side on every worker of a run.
//
// A worker is one host file of the run: a `<host>.xplane.pb` of a TensorBoard run, or one rank's
// PyTorch/Kineto trace (named "rank N" from its `distributedInfo.rank`). Each worker is loaded on
// its own (in parallel) and its steps found and broken down by the overview's step analysis
// (analyzeSteps), so a worker's numbers are exactly what the overview shows for that host alone.
// Steps are matched across workers by step number.
//
// Per worker and step, besides the breakdown:
// - collective kernels: the worker's GPU stream events whose name contains "nccl" or "rccl" (the
//   GpuTime rule, after Holistic Trace Analysis), clipped to the step; their union is the
//   collective time, and the part of it during which a computation kernel (any other stream event
//   that is not a copy or set) also runs is the overlapped time;
// - collective wait: the step breakdown's "Device collectives" category (collective time that
//   nothing of higher priority covers, as XProf's step analysis counts it);
// - first collective start: when its first collective kernel of the step begins, on the pod's
//   time base (every worker's absolute start, so workers line up as in the trace viewer's
//   "All hosts"; this assumes the hosts' clocks agree).
// Stragglers (Stepscope's rule; XProf's pod viewer only plots the numbers): among the workers that
// have the step, the one whose value is furthest above the median of all of them (median of an
// even count: the mean of the middle two), if any is above it. Over all steps, the same rule on
// each worker's mean over its steps. "Last to start collectives": per step, the worker whose first
// collective kernel starts last, and its lag behind the first; over all steps, the worker with
// the largest mean lag.
struct PodWorker {
    std::string name;  // "rank N" for a Kineto trace with distributedInfo.rank, else the host
    std::string host;  // the host file's name (file name without its suffix)
    std::string path;  // empty for a profile held in memory
    int64_t rank = -1; // -1: not recorded
    std::string error; // why this worker has no steps (cannot be read, no steps found)
    StepSource source = StepSource::None;
    size_t steps = 0;
    int64_t startNs = 0; // absolute start of its profile
};

struct PodCell {
    bool present = false; // the worker has this step
    StepRecord step;      // the worker's breakdown (times in ps from the worker's start)
    int64_t beginPs = 0;  // the step's begin on the pod time base (ps from the earliest worker)
    int64_t collectivePs = 0, collectiveOverlapPs = 0;
    int64_t firstCollectivePs = -1; // pod time base; -1 without collective kernels in the step

    double collectiveWaitPs() const { return double(step.ps(StepCategory::DeviceCollectives)); }
};

// One straggler finding; worker -1 when no worker is above the median (all equal, or fewer than
// two workers with a value).
struct PodStraggler {
    int worker = -1;
    double valueMs = 0;  // the straggler's value (for last-to-start: its lag behind the first)
    double medianMs = 0; // median over the workers (for last-to-start: of the lags)
    double excessMs = 0; // valueMs - medianMs
};

struct PodStep {
    int64_t number = 0;
    std::vector<PodCell> cells; // one per worker, in worker order
    PodStraggler stepTime, collectiveWait, lastToStart;
};

// One collective kernel name on one worker, summed over the worker's steps (clipped to them).
struct PodCollectiveKernel {
    int worker = 0;
    std::string name;
    int64_t calls = 0;
    int64_t totalPs = 0;
};

struct PodAnalysis {
    std::vector<PodWorker> workers;
    std::vector<PodStep> steps; // every step number some worker has, ascending
    PodStraggler stepTime, collectiveWait, lastToStart; // over all steps
    std::vector<PodCollectiveKernel> kernels;           // by worker, then total time descending
    int64_t startNs = 0;                                // the pod time base
    // PyTorch's distributed view over the loaded workers (PytorchDistributed.h); computed when
    // some worker is a PyTorch/Kineto trace. `distributedWorkers[i]` is the PodWorker index of
    // distributed.workers[i].
    bool pytorch = false;
    DistributedView distributed;
    std::vector<size_t> distributedWorkers;

    size_t loadedWorkers() const;
    std::vector<std::string> distributedNames() const;
};

// Loads each host file as a worker, all at once on up to as many threads as there are cores, and
// analyses each. A worker that cannot be read keeps its error and the others go on. Progress
// reports each worker as it finishes; cancel() stops the loads and returns an empty result.
PodAnalysis computePodViewer(const std::vector<HostFile>& hosts,
                             const Progress* progress = nullptr);

// Loads every host of `profile` as a worker from its file (`Host::sourcePath`), all at once on up
// to as many threads as there are cores, and analyses each. A profile of one host is used as it
// is. A worker that cannot be read keeps its error and the others go on. Progress reports each
// worker as it finishes; cancel() stops the loads and returns an empty result.
PodAnalysis computePodViewer(const Profile& profile, const Progress* progress = nullptr);

// The analysis of workers already loaded (tests; computePodViewer's second half). `profiles[i]`
// null means worker i failed; its PodWorker says why.
PodAnalysis analyzePod(std::vector<PodWorker> workers,
                       const std::vector<std::shared_ptr<const Profile>>& profiles,
                       const Progress* progress = nullptr);

// The event of `all` (the run loaded with every host side by side, as the trace viewer's "All
// hosts" shows it) that spans the worker's step: an event of the worker's host that starts at the
// step's begin and lasts the step time (its step marker), else the longest event of that host
// starting within the step. kNoIndex when the host or such an event is not in `all`.
EventIndex podStepEvent(const Profile& all, const PodAnalysis& pod, const PodStep& step,
                        size_t worker);

// The page's table and the CSV export: one row per step and worker that has it. `step` >= 0:
// only that step number.
Table podStepTable(const PodAnalysis& pod, int64_t step = -1);
// Per worker over all steps: means, collective totals, overlap, errors.
Table podWorkerTable(const PodAnalysis& pod);
// The collective kernels behind the collective time, per worker.
Table podKernelTable(const PodAnalysis& pod);
std::string podViewerJson(const PodAnalysis& pod);

} // namespace stepscope
