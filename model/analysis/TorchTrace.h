#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/TensorCore.h"
#include "model/pytorch/DeviceSteps.h"
#include "model/pytorch/TorchRanges.h"

namespace stepscope {

// One host of a PyTorch (Kineto) profile read the way the PyTorch profiler's TensorBoard plugin
// reads it (pytorch/kineto tb_plugin/torch_tb_profiler/profiler/, last present at commit
// 790be856: trace.py, event_parser.py, node.py, op_tree.py), so that the numbers built on it
// (TorchStats, TorchOverview) are the ones PyTorch users know:
//
// - event types from the category (trace.py EventTypeMap, any case): cpu_op/operator ->
//   Operator, cuda_runtime/runtime (and the mtia/xpu/privateuse1 variants) -> Runtime,
//   kernel, gpu_memcpy/memcpy, gpu_memset/memset, python, python_function (with a "Python module
//   id": Module), user_annotation; an Operator or user_annotation named "ProfilerStep#N" is
//   step N;
// - operator tree per thread, by time containment (ops sorted by start, the longer first); an
//   op that overlaps its would-be parent without nesting is dropped, as the plugin does;
//   "enumerate(DataLoader)#...__next__" and "Optimizer.step..." are tree nodes but not
//   operators, user annotations are tree nodes only when they are NCCL/Gloo collectives;
// - runtimes (launches) join operators by "External id" (the first op with that id that
//   encloses the runtime in time: a departure, the plugin needs no enclosure), runtimes
//   with External id 0 join their thread's root; device events join runtimes by correlation;
//   kernels no runtime launched go under the root of the thread that has ProfilerStep#;
// - a parent and its only child of one name (both Operator) merge: the parent keeps the child's
//   children and runtimes (op_tree.py remove_dup_nodes);
// - per node (node.py fill_stats): host total = its duration; host self = duration - children's
//   durations - its runtimes' durations, where time covered twice (a runtime inside a child,
//   runtimes of other threads overlapping) counts once (departure: the plugin subtracts every
//   duration, and can go negative); device total = the device time (kernels, copies,
//   memsets) of its runtimes and its children's; device self = that of its own runtimes;
//   Tensor Core time likewise, from kernels that use Tensor Cores by Stepscope's table
//   (KernelFacts; departure: the plugin's TC_Allowlist, NVIDIA PyProf's list of 2020, matches no
//   Hopper or Blackwell kernel);
// - steps: the ProfilerStep#N ranges, extended to the device work their launches caused
//   (event_parser.py update_device_steps: start = max(previous step's end, host start), end =
//   max(host end, last device end of the step's launches); trailing steps without device work,
//   and a last step with under 0.8 x the previous step's device events, are dropped); without
//   steps, one step spanning the host ops;
// - role ranges of the step breakdown (event_parser.py _parse_step): kernel (communication when
//   its External id is an NCCL/Gloo op's), memcpy, memset, runtime, dataloader, CPU op.
//
// Departures: the plugin's thread ids are tids across processes; here a thread is one track
// (pid and tid). The backward-pass regrouping under modules (op_tree.py, which needs the
// forward/backward flow events) and PyTorch Lightning events are not read.
enum class TorchEventType : uint8_t {
    Other,
    Operator,
    ProfilerStep,
    Runtime,
    Kernel,
    Memcpy,
    Memset,
    Python,
    PythonFunction,
    Module,
    UserAnnotation
};

// The plugin's ProfileRole, in its order (also the step breakdown's priority).
enum class TorchRole : uint8_t {
    Kernel,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuOp,
    Other
};
inline constexpr size_t kTorchRoleCount = 8;

inline constexpr uint32_t kTorchNone = 0xFFFFFFFFu;
inline constexpr int64_t kTorchNoExternalId = std::numeric_limits<int64_t>::min();

struct TorchDeviceNode {
    EventIndex event = 0;
    int64_t start = 0, end = 0;
    StringId name = 0;
    TorchEventType type = TorchEventType::Kernel;
    int64_t deviceId = -1; // the "device" arg; -1 when absent
    double blocksPerSm = std::numeric_limits<double>::quiet_NaN(); // "blocks per SM"
    double occupancy = std::numeric_limits<double>::quiet_NaN();   // "est. achieved occupancy %"
    std::string grid, block;                                       // as written; empty if absent
    int64_t registers = -1, sharedMemory = -1;
    int64_t externalId = kTorchNoExternalId;
    // Stepscope's table (KernelFacts), not the plugin's TC_Allowlist, which stops at Ampere: it
    // calls every nvjet, sm90_xmma_fprop and cuDNN wgmma kernel a non-Tensor Core kernel.
    TensorCoreUse tensorCore = TensorCoreUse::Unknown;
    uint32_t node = kTorchNone; // the tree node whose runtime launched it
    bool opTensorCoreEligible = false;
    bool matchedToStep = false;
};

struct TorchRuntime {
    int64_t start = 0, end = 0;
    bool timed = true; // false for the plugin's "dummy" runtime of unlaunched kernels
    uint32_t track = 0;
    int64_t externalId = kTorchNoExternalId;
    std::vector<uint32_t> devices; // into TorchTrace::devices
    int64_t devicePs = 0, tensorCorePs = 0;
};

enum class TorchNodeKind : uint8_t { Root, Operator, ProfilerStep, Module, DataLoader, Optimizer };

struct TorchNode {
    TorchNodeKind kind = TorchNodeKind::Operator;
    TorchEventType type = TorchEventType::Operator;
    EventIndex event = kNoIndex; // its host event; kNoIndex for a thread's root
    StringId name = 0;
    int64_t start = 0, end = 0;
    uint32_t track = 0;
    int64_t externalId = kTorchNoExternalId;
    StringId inputDims = 0; // "Input Dims" as written; 0 when absent
    std::vector<uint32_t> children, runtimes;
    int64_t devicePs = 0, selfHostPs = 0, selfDevicePs = 0;
    int64_t tensorCoreSelfPs = 0, tensorCoreTotalPs = 0;
    bool tensorCoreEligible = false;
    // An operator row of the plugin's tables (node.py is_operator_node).
    bool isOperator = false;
};

struct TorchTrace {
    uint32_t host = 0;
    std::vector<TorchNode> nodes;
    std::vector<TorchRuntime> runtimes;
    std::vector<TorchDeviceNode> devices; // kernels, copies and memsets, in event order
    std::vector<uint32_t> roots;          // one per thread
    std::vector<uint32_t> operators;      // operator nodes, children before parents
    std::vector<uint32_t> treeKernels;    // kernels reachable from the trees
    std::vector<TorchRange> steps;        // after the device-side update
    std::vector<std::string> stepNames;
    std::array<std::vector<TorchRange>, kTorchRoleCount - 1> roleRanges; // merged
    bool hasHostEvents = false;
};

// trace.py EventTypeMap, looked up by the lower-cased category (the Kineto importer keeps it as
// the metadata stat `category`). Departure: "cuda_driver" is a runtime too. The plugin predates
// it; Kineto records driver-API launches under it, and on Hopper cuBLAS launches its GEMMs with
// cuLaunchKernelEx (every nvjet kernel of the H200 gpt12 trace), which the plugin's reading would
// leave outside every operator. Any other category: Other (Module and ProfilerStep come from
// more than the category).
TorchEventType torchEventTypeOfCategory(std::string_view category);

// Whether the profile holds PyTorch operators (host events of category cpu_op or Operator).
bool isTorchProfile(const Profile& profile);
// The Kineto events of one host (Profile::hosts() index) as the plugin reads them.
TorchTrace buildTorchTrace(const Profile& profile, uint32_t host);

} // namespace stepscope
