#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/Profile.h"
#include "model/Table.h"
#include "model/analysis/TorchTrace.h"

namespace stepscope {

// The operator and kernel tables of the PyTorch profiler's TensorBoard plugin
// (tb_plugin/torch_tb_profiler/profiler/op_agg.py and kernel_parser.py, pytorch/kineto at
// 790be856), over the trees TorchTrace builds. Times in ps here, µs in the tables.

// Operators grouped by name (or name and input shape): op_agg.py aggregate_ops.
struct TorchOpRow {
    std::string name;
    std::string inputShape; // "Input Dims" as written; empty when not recorded or not grouped
    uint64_t calls = 0;
    int64_t hostPs = 0, selfHostPs = 0, devicePs = 0, selfDevicePs = 0;
    int64_t tensorCoreSelfPs = 0, tensorCoreTotalPs = 0;
    bool tensorCoreEligible = false; // of the group's first operator, as the plugin
};

// Kernels grouped by name, operator and launch configuration: op_agg.py aggregate_kernels.
// Only the kernels the trees reach (launched under an operator, a step, or a thread's root).
struct TorchKernelOpRow {
    std::string name, op; // op "CallTreeRoot": launched outside every operator
    std::string grid, block;
    int64_t registers = -1, sharedMemory = -1; // -1: not recorded
    uint64_t calls = 0;
    int64_t totalPs = 0, minPs = 0, maxPs = 0;
    // Duration-weighted means; NaN when no kernel of the group recorded the arg (the plugin
    // counts those kernels as 0 in the weighted sum).
    double blocksPerSm = 0, occupancyPercent = 0;
    bool anyBlocksPerSm = false, anyOccupancy = false;
    TensorCoreUse tensorCore = TensorCoreUse::Unknown;
    bool opTensorCoreEligible = false;
};

// Every kernel grouped by name: kernel_parser.py (kernel_stat).
struct TorchKernelRow {
    std::string name;
    uint64_t calls = 0;
    int64_t totalPs = 0, minPs = 0, maxPs = 0;
    double blocksPerSm = 0, occupancyPercent = 0; // duration-weighted, missing args as 0
    TensorCoreUse tensorCore = TensorCoreUse::Unknown;
};

struct TorchStats {
    std::vector<TorchOpRow> ops;        // by name
    std::vector<TorchOpRow> opsByInput; // by name and input shape
    std::vector<TorchKernelOpRow> kernelsByOp;
    std::vector<TorchKernelRow> kernels;
    // kernel_parser.py tc_used_ratio: Tensor Core kernels' share of all kernel time, 0..1; NaN
    // without kernels.
    double tensorCoreKernelRatio = 0;
};

// Over every host of the profile (each host's trees built separately, rows summed by key).
TorchStats computeTorchStats(const Profile& profile);
TorchStats computeTorchStats(const std::vector<TorchTrace>& traces, const Profile& profile);

Table torchOpTable(const std::vector<TorchOpRow>& rows, bool withInputShape);
Table torchKernelOpTable(const TorchStats& stats);
Table torchKernelTable(const TorchStats& stats);

} // namespace stepscope
