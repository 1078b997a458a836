#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/Profile.h"
#include "model/Table.h"

namespace stepscope {

// PyTorch's "Distributed" view, as the PyTorch Profiler's TensorBoard plugin (torch_tb_profiler,
// pytorch/kineto tb_plugin, last present at commit 949796072a~1) defines it. Sources:
//   profiler/trace.py           event types by "cat"; NcclOpNameSet / GlooOpNameSet
//   profiler/event_parser.py    communication nodes, role ranges, steps and their device extent
//   profiler/overall_parser.py  per step computation / overlap / communication / other
//   profiler/communication.py   nodes per step, per-op calls, bytes, latency, transfer time
//   profiler/loader.py          _process_distributed_profiles: transfer time across workers
//   profiler/run_generator.py   DistributedRunGenerator: the graphs and the op table
// Per worker (one rank's trace):
// - Communication nodes: host ops (cat cpu_op/operator/python/user_annotation/
//   gpu_user_annotation, ProfilerStep#) named exactly nccl:broadcast, nccl:reduce,
//   nccl:all_reduce, nccl:all_gather, nccl:reduce_scatter (or gloo:...), keyed by "External id".
//   A node's ranges are its own host range plus, for NCCL, the kernels with the same external id.
// - Roles and steps are TorchTrace's (the plugin's reading of the trace, shared with the PyTorch
//   tool): a kernel whose external id is a node's is communication, any other kernel
//   computation; a communication host op is communication, any other host op CPU work.
//   Steps: the ProfilerStep#N ranges (name N), else one step "0" over the host ops. When some
//   runtime launched device work, each step is extended to the end of the device work its runtime
//   calls launched and starts no earlier than the previous step's end (the first: no earlier than
//   the last unrelated device work ending before step 0's device work); trailing steps without
//   device work, or with under 80 % of the previous step's, are dropped (the plugin's default).
// - Per step: computation = |step ∩ kernels| (host CPU work when there is no kernel at all),
//   communication = |step ∩ communication|, overlap = |step ∩ kernels ∩ communication|, other =
//   step − computation − communication + overlap. Shown as computation only (computation −
//   overlap), overlapped, communication only (communication − overlap) and other.
// - Per communication op name: calls; bytes = Σ over its inputs of the element count ("Input
//   Dims") × the element size of its "Input type" (long int 8, float 4, int 4, c10::Half 2,
//   c10::BFloat16 2, unsigned char 1, anything else 0); total latency = the union of its nodes'
//   ranges.
// Across workers (only when every worker has communication, the same number of nodes and, node by
// node, the same number of ranges): node i's range j on every worker gets its "real" transfer range
// (end − d, end), d being the shortest duration of range j of node i on any worker. Data transfer
// time = the union of the real ranges; synchronizing (wait) time = latency − transfer, per step
// (nodes wholly inside it) and per op name.
// Departures: values are exact picoseconds (the plugin rounds averages to whole µs and truncates
// the "all steps" means); a communication node outside every step is left out of the per-step
// wait and transfer (the plugin lists it under a step named "None"); when the workers' nodes do not
// match, the plugin hides the whole view, Stepscope still shows everything that does not need the
// match (computation/overlap, calls, bytes, latency) and says why transfer and wait are missing;
// with both NCCL and Gloo ops in one trace the plugin hides the view, Stepscope says so.
struct DistributedStep {
    std::string name; // the N of ProfilerStep#N, or "0"
    int64_t beginPs = 0, endPs = 0;
    int64_t computationPs = 0, overlapPs = 0, communicationPs = 0, otherPs = 0; // plugin's raw
    int64_t commLatencyPs = -1;  // union of the step's communication node ranges; -1: no node
    int64_t commTransferPs = -1; // union of their real ranges; -1: not known (no match)

    int64_t computationOnlyPs() const { return computationPs - overlapPs; }
    int64_t communicationOnlyPs() const { return communicationPs - overlapPs; }
};

struct DistributedOp {
    std::string name;
    int64_t calls = 0;
    int64_t bytes = 0;
    int64_t latencyPs = 0;
    int64_t transferPs = -1; // -1: not known (the workers' nodes do not match)
};

struct DistributedWorker {
    std::vector<DistributedStep> steps;
    std::vector<DistributedOp> ops; // in order of the first call
    size_t nodes = 0;               // communication nodes
    bool nccl = false, gloo = false;
};

struct DistributedView {
    std::vector<DistributedWorker> workers;
    bool transferKnown = false; // the nodes matched across workers
    std::string problem;        // why transfer/wait are not known; empty when they are
};

// One worker: the planes of `host` in `profile` (a PyTorch/Kineto trace).
struct DistributedInput {
    const Profile* profile = nullptr;
    uint32_t host = 0;
};

DistributedView analyzeDistributed(const std::vector<DistributedInput>& workers);

// Tables for the page and the export; `workerNames[i]` names worker i.
// Per worker and step (µs): computation only, overlapped, communication only, other, data
// transfer, synchronizing; step "all" rows hold each worker's mean over its steps. `step`
// non-empty: only that step's rows and the "all" rows.
Table distributedStepTable(const DistributedView& view, const std::vector<std::string>& workerNames,
                           std::string_view step = {});
// Per worker and communication op: calls, total and average size (bytes), total and average
// latency, data transfer time (µs).
Table distributedOpTable(const DistributedView& view, const std::vector<std::string>& workerNames);

} // namespace stepscope
