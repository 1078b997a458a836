#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/OpName.h"

namespace stepscope {

// What the run diff compares on the host side (HostOpDiff.h): which events of a host plane's
// non-derived tracks are host ops, and each one's kind and name.
//
// PyTorch (Kineto) events, by their category as the PyTorch profiler's TensorBoard plugin reads
// it (torchEventTypeOfCategory):
//   cpu_op (2021: Operator)            kind "cpu_op"
//   user_annotation                    kind "user_annotation"
//   cuda_runtime, cuda_driver, ...     kind "runtime" (the launch and sync calls HTA's trace diff
//                                      counts with the CPU ops)
//   python_function, python            kind "python_function", only when asked for: a Python
//                                      trace holds ten or more of them per operator
// named by the event. The step markers ProfilerStep#N are one op, user_annotation
// "ProfilerStep#*", so that the marker of step N in one run meets the marker of its paired step in
// the other. HTA's trace diff (facebookresearch/HolisticTraceAnalysis, hta/trace_diff.py)
// compares every CPU event (stream -1) of an iteration by name, these categories among them.
// TensorFlow and JAX (XSpace) events: the host ops of the TF op stats (OpCatalog::hostOp: an op
// name such as "model/dense/MatMul:MatMul", a `tf_op` stat, an input-pipeline stage), kind = the
// op type, name = the op name, as the tool's host rows show them.
struct HostOpIdentity {
    std::string kind;
    std::string name;
};

class HostOpCatalog {
public:
    static constexpr uint32_t kNone = OpCatalog::kNoOp;

    HostOpCatalog(const Profile& profile, bool pythonFunctions);

    // The host op of a host event, or kNone. `tfOp`: its framework-op stat (0 when none);
    // `runtime`: it is a launch or an allocator event (TfOpStats' rule for XSpace events).
    uint32_t of(EventIndex event, StringId tfOp, bool runtime);

    const HostOpIdentity& op(uint32_t index) const { return ops_[index]; }

private:
    uint32_t intern(std::string_view kind, std::string_view name);
    uint32_t fromCategory(uint32_t metadata);

    const Profile& profile_;
    bool pythonFunctions_;
    StringId categoryKey_;
    OpCatalog catalog_;
    std::vector<uint32_t> byMetadata_;  // metadata -> op, kNone, or one of the markers in the .cpp
    std::vector<uint32_t> fromCatalog_; // OpCatalog op -> op
    std::vector<HostOpIdentity> ops_;
    std::unordered_map<std::string, uint32_t> index_; // kind '\0' name -> op
};

} // namespace stepscope
