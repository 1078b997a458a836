#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/analysis/Roofline.h"

namespace stepscope {

// XProf's op_profile (xprof/convert/op_profile_builder.cc) over the roofline's ops: a tree whose
// leaves are ops and whose inner nodes add up their children (RooflineSum), each with time,
// FLOPs, bytes, FLOP/s and Bytes/s as shares of the roofs, and "bound by".
//   ByProgram:     program -> category -> op, as XProf's "by program" view (HLO ops of each
//                  XLA module; PyTorch operators under "PyTorch"; device work no op claims
//                  under "Not attributed"). A profile of several GPUs puts the device above.
//   ByFrameworkOp: the framework op's name path split at '/' (JAX and TensorFlow: the HLO's
//                  op_name, "jit(train_step)/jvp()/dot_general"; PyTorch: the enclosing
//                  operators, "aten::linear/aten::addmm"), the ops at the end of their path;
//                  ops without a path under "(no framework op)".
// Children are sorted by time, descending (ties by name).
enum class OpProfileGrouping : uint8_t { ByProgram, ByFrameworkOp };

struct OpProfileNode {
    std::string name;
    RooflineSum sum;
    std::vector<uint32_t> children; // into OpProfile::nodes
    int64_t cell = -1;              // leaves: index into Roofline::cells
};

struct OpProfile {
    std::vector<OpProfileNode> nodes; // [0] is the root (every op of the step)
};

// The tree of one step's cells (-1: the whole profile).
OpProfile opProfile(const Roofline& r, OpProfileGrouping grouping, int32_t step = -1);

} // namespace stepscope
