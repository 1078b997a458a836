#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/HloCatalog.h"
#include "model/analysis/Precision.h"
#include "model/analysis/TensorCore.h"

namespace stepscope {

// What Stepscope knows of one kernel (a device op event that is not a copy, a memset or a
// collective): its precision, where that answer came from, and whether it ran on Tensor Cores.
struct KernelFact {
    Precision precision = Precision::Unknown;
    PrecisionSource source = PrecisionSource::None;
    TensorCoreUse tensorCore = TensorCoreUse::Unknown;
};

// The one place every tool (overview, kernel stats, op stats, the PyTorch tab, the run diff)
// takes precision and Tensor Core answers from. Evidence, best first (Precision.h):
//   0. the XLA HLO instruction the kernel ran for (HloCatalog, command buffers included): the
//      element types of its operands and result (instructionPrecision);
//   1. the kernel's PyTorch op's "Input type" (Kineto traces: the importer writes the list of the
//      cpu_op that launched the kernel as the kernel's `op_input_types` stat; kernels replayed
//      from CUDA graphs have none, since the graph-launching op's inputs are not the kernel's),
//      where that op is an operator that owns its kernels (opInputTypesDescribeItsKernels: not
//      CompiledFunction, an autograd.Function or an autograd node, whose inputs are a whole
//      graph's); INT8 counts when that op is Tensor Core eligible (a matrix op);
//   2. the kernel's name (precisionOfKernelName);
//   3. XProf's tensor-shapes rule on the event's `shape` stat (tsl's xplane_schema: "shape" is
//      kTensorShapes; ClassifyGpuCompute in xprof/convert/xplane_to_step_events.cc). Departure:
//      XProf reads the shapes first and the name only without them; here they come last, as
//      the weakest evidence.
// Whatever the source, fp32 work whose kernel name says tf32 is TF32 (no tensor is stored as
// tf32, so no source but the name can say it).
// Tensor Core use: the kernel-name table (kernelTensorCoreUse), which reads the precision for the
// families whose name cannot tell; where the name says nothing and the kernel ran for an HLO
// instruction, an HLO matrix op (dot, convolution, a fusion holding one, a cuBLAS/cuDNN call)
// in 16 or fewer bits or tf32 uses Tensor Cores on NVIDIA sm_80+ (fp16 from sm_70), as XLA:GPU
// emits them there (cuBLAS/cuBLASLt, cuDNN, its Triton GEMM fusions), and any other HLO op
// but a custom-call (elementwise and reduction fusions, copies) does not; another custom-call
// (a Pallas or Triton kernel, a sort) stays Unknown.
// Answers are cached per kernel name and per distinct evidence, so a pass over millions of
// kernels does little string work. Not thread-safe: one per analysis thread.
// Whether a PyTorch op's "Input type" describes the kernels it launches: an operator of a
// namespace (aten::mm, c10d::allreduce_, torchao::..., a custom op) and not an autograd node
// (autograd::engine::evaluate_function: ...). Composite ops without a namespace
// (CompiledFunction, CompiledFunctionBackward, a Python autograd.Function) take a whole graph's
// inputs: fp32 parameters of a bf16 autocast run, say.
bool opInputTypesDescribeItsKernels(std::string_view op);

class KernelFacts {
public:
    // `hlo`: the profile's HLO catalog, made once by the caller (it outlives this object).
    KernelFacts(const Profile& profile, const HloCatalog& hlo);

    KernelFact of(EventIndex kernel);

private:
    Precision fromInputTypes(StringId inputTypes, EventIndex kernel);

    KernelFact evidenceOf(EventIndex kernel, uint32_t meta);
    Precision namePrecision(uint32_t meta);
    StringId textStat(EventIndex e, StringId key) const;
    TensorCoreUse hloTensorCoreUse(const HloOpRef& ref, uint32_t track, Precision precision) const;

    const Profile& profile_;
    const HloCatalog& hlo_;
    HloCatalog::Cursor hloCursor_;
    StringId inputTypesKey_, shapeKey_;
    std::vector<uint8_t> namePrecision_;   // per metadata: Precision + 1, 0 = not yet
    std::vector<uint8_t> nameTensorCore_;  // per metadata x precision: TensorCoreUse + 1
    std::vector<std::string_view> vendor_; // per track
    std::vector<int> computeCap_;          // per track: major * 10 + minor
    // Per metadata, where no per-event evidence can differ: kAnswered | precision | source << 8 |
    // tensor core << 16.
    static constexpr uint32_t kAnswered = 1u << 31;
    std::vector<uint32_t> answerOfMetadata_;
    std::unordered_map<uint64_t, Precision> inputTypes_; // (types id, op id) -> precision
    std::unordered_map<StringId, Precision> shapes_;
    uint32_t track_ = 0;
    EventIndex trackBegin_ = 0, trackEnd_ = 0; // the events of track_
};

} // namespace stepscope
