#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/TorchStats.h"
#include "model/analysis/TorchTrace.h"

namespace stepscope {

// The overview numbers of the PyTorch profiler's TensorBoard plugin for one host (pytorch/kineto
// tb_plugin/torch_tb_profiler/profiler/ at 790be856), over the steps TorchTrace finds:
//
// Step breakdown (overall_parser.py): each instant of the steps is given to the first role in
// the order kernel, memcpy, memset, communication, runtime, dataloader, CPU exec whose merged
// ranges cover it, and to "other" when none does; a step's cost of a role is the length of its
// share inside the step; the average is the mean over steps. Total = the step's duration.
//
// GPU metrics per device (gpu_metrics_parser.py), all within [first step start, last step end]:
// - GPU utilization: the length of the union of the device's kernels / that span;
// - est. SM efficiency: at each instant, the sum of the running kernels' "blocks per SM" args
//   capped at 1, integrated over the span and divided by its length (kernels with a value <= 0
//   or none are left out);
// - est. achieved occupancy: the mean of "est. achieved occupancy %" weighted by the kernels'
//   durations inside the span (kernels without the arg left out; missing when none has it).
// A device is the kernel's "device" arg; kernels without it are not counted (as the plugin).
//
// Tensor Cores (tensor_cores_parser.py): per device, the Tensor Core kernels' share of the
// kernel time launched by operators; and the share of operator kernel time launched by the
// lowest Tensor Core eligible operators ("TC eligible ops kernel ratio").
struct TorchStepCosts {
    std::string name; // N of ProfilerStep#N; "0" for the one step of a trace without steps
    TorchRange range;
    std::array<int64_t, kTorchRoleCount> ps{}; // TorchRole order
};

struct TorchGpuMetrics {
    int64_t device = 0;
    double utilization = 0;           // 0..1
    double smEfficiency = 0;          // 0..1; NaN: no kernel recorded blocks per SM
    double occupancyPercent = 0;      // NaN: no kernel recorded it
    double tensorCoreKernelRatio = 0; // 0..1; NaN: no operator launched a kernel
};

struct TorchOverview {
    uint32_t host = 0;
    std::vector<TorchStepCosts> steps;
    std::array<double, kTorchRoleCount> averagePs{}; // per role, mean over steps
    double averageStepPs = 0;
    std::vector<TorchGpuMetrics> gpus;           // by device id
    double tensorCoreEligibleOpsKernelRatio = 0; // 0..1
};

TorchOverview computeTorchOverview(const TorchTrace& trace);
// One per host that holds PyTorch events. Returns an empty result when cancelled (checked
// before each host).
std::vector<TorchOverview> computeTorchOverviews(const Profile& profile,
                                                 const Progress* progress = nullptr);

// Everything the PyTorch page shows: each host's trace read once. Returns an empty result when
// cancelled.
struct TorchAnalysis {
    TorchStats stats;
    std::vector<TorchOverview> overviews;
};
TorchAnalysis computeTorchAnalysis(const Profile& profile, const Progress* progress = nullptr);

// The role's name as the plugin shows it ("Kernel", ..., "CPU Exec", "Other").
std::string_view torchRoleName(TorchRole role);

// Rows: each step of each host, then each host's "Average"; columns Host, Step, the roles and
// Total (µs).
Table torchStepTable(const std::vector<TorchOverview>& overviews, const Profile& profile);
// Rows per host and device: utilization, SM efficiency, occupancy, Tensor Core share (%).
Table torchGpuTable(const std::vector<TorchOverview>& overviews, const Profile& profile);
// {"steps": step table rows, "gpus": GPU table rows, "hosts": [{"host", "tc_eligible_ops_kernel_
// percent"}], "tc_kernel_percent": Tensor Core kernels' share of all kernel time (null without
// kernels)}.
std::string torchOverviewJson(const std::vector<TorchOverview>& overviews, const Profile& profile,
                              double tensorCoreKernelRatio);

} // namespace stepscope
