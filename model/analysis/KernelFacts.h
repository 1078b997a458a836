#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"
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
//   1. the kernel's PyTorch op's "Input type" (Kineto traces: the importer writes the list of the
//      cpu_op that launched the kernel as the kernel's `op_input_types` stat; kernels replayed
//      from CUDA graphs have none, since the graph-launching op's inputs are not the kernel's);
//      INT8 counts when that op is Tensor Core eligible (a matrix op);
//   2. the kernel's name (precisionOfKernelName);
//   3. XProf's tensor-shapes rule on the event's `shape` stat (tsl's xplane_schema: "shape" is
//      kTensorShapes; ClassifyGpuCompute in xprof/convert/xplane_to_step_events.cc).
// Tensor Core use: the kernel-name table (kernelTensorCoreUse), which reads the precision for the
// families whose name cannot tell.
// Answers are cached per kernel name and per distinct evidence, so a pass over millions of
// kernels does little string work. Not thread-safe: one per analysis thread.
class KernelFacts {
public:
    explicit KernelFacts(const Profile& profile);

    KernelFact of(EventIndex kernel);

private:
    Precision fromInputTypes(StringId inputTypes, EventIndex kernel);

    const Profile& profile_;
    StringId inputTypesKey_, shapeKey_;
    std::vector<uint8_t> namePrecision_;   // per metadata: Precision + 1, 0 = not yet
    std::vector<uint8_t> nameTensorCore_;  // per metadata x precision: TensorCoreUse + 1
    std::vector<std::string_view> vendor_; // per track
    std::unordered_map<uint64_t, Precision> inputTypes_; // (types id, op id) -> precision
    std::unordered_map<StringId, Precision> shapes_;
};

} // namespace stepscope
