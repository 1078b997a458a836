#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/xspace/HloProto.h"

namespace stepscope {

// Attribution of the device work of one XLA command buffer launch (a CUDA graph) to the HLO
// instructions it ran for.
//
// Why: XLA:GPU records every kernel of a command buffer with the stat `hlo_op: command_buffer_N`
// (a runtime construct over a run of a computation's schedule; the HLO has no such instruction),
// so without this every kernel of a captured training step lands on one op. XProf does not
// attribute them either (openxla/xprof issue #3070); this alignment is Stepscope's own rule.
//
// The schedule (HloModuleProto.schedule) gives the order a computation's instructions run in;
// the kernels of one launch, in start order on their stream, follow the schedule's instructions
// that put work on the device (emitsDeviceWork). Kernels are named by XLA after their
// instruction (kernelNameOf), except that XLA reuses one compiled kernel for identical fusions
// and library calls (cuBLAS, cuDNN, NCCL) run kernels named by the library.

// Whether an instruction puts work on the device when its computation runs: everything but
// parameter, constant, get-tuple-element, tuple, bitcast, after-all, add-dependency,
// opt-barrier, domain and the waits of asynchronous pairs (opcodes ending in "-done", and
// async-update), which XLA:GPU turns into no kernel, copy or library call.
bool emitsDeviceWork(const HloInstruction& instruction);

// The name XLA gives the kernel it compiles for an instruction (llvm_ir::SanitizeFunctionName in
// XLA): every character other than [A-Za-z0-9_$] becomes '_', a leading digit gets a '_' before
// it, an empty name is "__unnamed", and "_" or "$" alone get a '_' after them.
// "loop_add_fusion.1" -> "loop_add_fusion_1".
std::string kernelNameOf(std::string_view instructionName);

// What XLA's kernel reuse needs two fusions to share, as one string: the instructions of their
// fused computations (opcode, element type, dimensions), sorted. Fusions with the same string
// are alike enough that one compiled kernel can serve both.
std::string fusedSignature(const HloModule& module, const HloInstruction& fusion);

// Whether a device event is a memset: its name begins with "Memset" ("Memset 0").
bool isMemsetName(std::string_view eventName);

// Whether a library kernel follows a call's main kernel as part of that call: cuBLAS's split-K
// reduction (splitKreduce_kernel, reduce_1Block_kernel) and cuDNN's fused-attention helpers
// (cudnn::fusion::...).
bool isFollowerKernel(std::string_view name);

// The device-work instructions of one scheduled computation, in schedule order, ready to align
// launches against.
//
// align() reads a launch's events (names in start order) in two passes:
//   1. Anchors. A kernel whose name is the kernel name of an instruction after the last anchor
//      takes the first such instruction (instructions skipped over ran nothing that was
//      recorded). A kernel named after a fusion of the module, but of none after the last anchor,
//      is a reused kernel (XLA compiles identical fusions once, under the first one's name): it
//      takes the next fusion after the last anchor if that fusion is identical to the one the
//      name belongs to (fusedSignature()), and stays unattributed otherwise. Library kernels do
//      not move the anchors, so one call that runs several kernels cannot push the fusions after
//      it out of reach.
//   2. Library kernels (cuBLAS "nvjet_*", "Cijk_*", cuDNN, NCCL, copies) between two anchors take
//      the non-fusion instructions (custom-calls, collectives, copies) between them, in order:
//      each main kernel the next call, the kernels a library runs after its main one
//      (isFollowerKernel: cuBLAS's split-K reduction, cuDNN's fusion helpers) and the memsets
//      before it (cuBLAS's workspace "Memset 0") with it; main kernels beyond the calls there
//      stay unattributed rather than guessed. Before the first anchor the library kernels take
//      the last calls of the non-fusion run just before it (the launch began there), after the
//      last anchor the run just after it; a launch with no anchor (only library kernels) is
//      aligned from the schedule's start. A memset before a fusion kernel stays unattributed.
//   Reused kernels before the first anchor take the fusions before it, going back, while they
//   are alike.
// A launch may cover a later run of the schedule (a module can have several command buffers):
// its first anchor places it. If that first anchor is a reused kernel, it anchors at the fusion
// whose name it carries, which can be too early; the kernels after it still align by name.
class CommandBufferSchedule {
public:
    // `sequence` is one of `module`'s schedule entries.
    CommandBufferSchedule(const HloModule& module, const HloSequence& sequence);

    int64_t computationId() const { return computationId_; }
    size_t size() const { return instructions_.size(); }
    const HloInstruction* instruction(size_t position) const { return instructions_[position]; }

    // For each event (names in start order), the position in this schedule of the instruction
    // it ran for, or -1 where the rules above give none.
    std::vector<int32_t> align(std::span<const std::string_view> eventNames) const;

private:
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    uint32_t named(std::string_view kernel, uint32_t from) const;
    bool isFusionKernel(std::string_view kernel) const { return fusionKernels_.contains(kernel); }
    bool reusable(std::string_view kernel, uint32_t position) const;

    int64_t computationId_ = 0;
    std::vector<const HloInstruction*> instructions_;
    std::vector<bool> isFusion_;
    std::vector<std::string> signatures_; // fusedSignature() of each fusion; "" for others
    // Kernel name -> positions in this schedule, ascending.
    std::unordered_map<std::string, std::vector<uint32_t>, Hash, std::equal_to<>> positions_;
    // Kernel name of every fusion of the module (any computation: a kernel XLA may reuse) ->
    // the fusion's fusedSignature().
    std::unordered_map<std::string, std::string, Hash, std::equal_to<>> fusionKernels_;
};

} // namespace stepscope
