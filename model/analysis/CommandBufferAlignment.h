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

// The device-work instructions of one scheduled computation, in schedule order, ready to align
// launches against.
//
// align() walks a launch's events (names in start order) with a cursor into the schedule:
//   1. A memset waits for the next event: if that is a library kernel (rule 4), the memset
//      takes the same instruction (cuBLAS calls run a "Memset 0" of their workspace first);
//      otherwise it stays unattributed.
//   2. A kernel whose name is the kernel name of an instruction at or after the cursor takes
//      the first such instruction; the cursor moves past it (instructions skipped over ran
//      nothing that was recorded).
//   3. A kernel whose name is the kernel name of a fusion of the module, but of none at or after
//      the cursor, is a reused kernel (XLA compiles identical fusions once, under the first
//      one's name): it takes the instruction at the cursor if that is a fusion identical to the
//      one the name belongs to (fusedSignature()), and stays unattributed otherwise. (Checking
//      that the two fusions are alike keeps a misaligned launch from pinning a kernel on
//      whichever fusion the cursor happens to be at.)
//   4. Any other event is a library kernel (cuBLAS "nvjet_*", "Cijk_*", cuDNN, NCCL) or a copy:
//      it takes the first instruction at or after the cursor that is not a fusion (a
//      custom-call, a collective, a copy, ...), and the cursor moves past it. So a second
//      library kernel after one moves on to the next custom-call: a custom-call that runs two
//      library kernels (a split-K GEMM and its reduction) would be misread; none of the profiles
//      Stepscope is tested on shows one.
//   Where the schedule runs out, the remaining events stay unattributed rather than guessed.
// The cursor starts at the schedule's first instruction, unless the launch covers a later run
// of it (a module can have several command buffers): then it starts where the launch's first
// kernel that names an instruction (rule 2) places it, moved back over the library kernels and
// reused kernels before that one (one non-fusion instruction per library kernel, one fusion per
// reused kernel), so that they align as above. If that first kernel is itself a reused kernel,
// it anchors at the fusion whose name it carries, which can be too early; the kernels after it
// still align by name.
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
    uint32_t startCursor(std::span<const std::string_view> eventNames) const;

    int64_t computationId_ = 0;
    std::vector<const HloInstruction*> instructions_;
    std::vector<bool> isFusion_;
    std::vector<std::string> signatures_; // fusedSignature() of each fusion; "" for others
    std::vector<uint32_t> nextNonFusion_; // position -> first non-fusion at or after it
    // Kernel name -> positions in this schedule, ascending.
    std::unordered_map<std::string, std::vector<uint32_t>, Hash, std::equal_to<>> positions_;
    // Kernel name of every fusion of the module (any computation: a kernel XLA may reuse) ->
    // the fusion's fusedSignature().
    std::unordered_map<std::string, std::string, Hash, std::equal_to<>> fusionKernels_;
};

} // namespace stepscope
