#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"

namespace stepscope {

// A framework op's name split into the op (node) name and its type.
struct OpNameParts {
    std::string_view name;
    std::string_view type;
};

// Splits a framework op name. Rules, in order:
//   "Iterator::Prefetch::Map"          tf.data op: name = whole text, type "Dataset"
//   "scope/name:Type"                  TF form (also the `tf_op` / `level 0` stats): name = text
//                                      before the last ':', type = text after it. For JAX's
//                                      "XlaModule:" the type is empty; callers treat that as an
//                                      XLA module annotation, not an op.
//   "jit(f)/jvp()/dot_general"         no ':' (JAX `name` stat, bare `level 0` refs such as
//                                      "MakeTensorFromProto", HLO names such as "fusion.3"):
//                                      name = whole text, type = the last '/' component with an
//                                      XLA instruction number (".3") removed.
OpNameParts splitOpName(std::string_view fullName);

// Whether a HOST event's own name is a framework op (TensorFlow's rule for host traces): a
// tf.data "Iterator::..." name, or "name:Type" where name matches [A-Za-z0-9._][A-Za-z0-9_./]*
// and Type matches the TF op-type pattern [A-Z_][A-Za-z0-9_]* or the JAX one [a-z_]+. Runtime
// events (ExecutorState::Process, MemoryAllocation, cudaLaunchKernel, MemcpyH2D, kernel names,
// Python frames) fail it. One deviation from TensorFlow: names may start with '_', so TF's
// internal "_send_...:_Send" / "_Recv" nodes count as ops.
bool isHostOpName(std::string_view eventName);

// The framework op an analysis attributes an event to.
struct OpIdentity {
    std::string name; // op (node) name; for JAX the op path "jit(f)/.../dot_general"
    std::string type; // op type ("MatMul", "dot_general", "Dataset")
};

// Interns the ops one analysis meets, each framework-op string parsed once (cached by string id
// and by metadata), so that a pass over millions of events does no string work.
//
// Device events: the op is the event's framework op (Profile::frameworkOps(): `tf_op`, or
// `level 0` in TF 2.x-era files). Where there is none, or it is only an XLA module annotation
// ("XlaModule:", empty type), the event's JAX `name` stat is used instead, then its `hlo_op`, and
// only then the module name (type "XlaModule").
// Host events: the op is the event's own name when isHostOpName() accepts it.
class OpCatalog {
public:
    static constexpr uint32_t kNoOp = 0xFFFFFFFFu;

    explicit OpCatalog(const Profile& profile);

    // The op of a host event with this metadata, or kNoOp.
    uint32_t hostOp(uint32_t metadata);
    // The op of a device event whose framework op is `frameworkOp` and hlo_op is `hloOp` (string
    // ids, 0 where the event has none), or kNoOp. Call it only when one of them is set.
    uint32_t deviceOp(EventIndex event, StringId frameworkOp, StringId hloOp);

    const OpIdentity& op(uint32_t index) const { return ops_[index]; }
    const std::vector<OpIdentity>& ops() const { return ops_; }
    size_t size() const { return ops_.size(); }

private:
    uint32_t intern(std::string_view name, std::string_view type);
    uint32_t fromString(StringId id, std::vector<uint32_t>& cache);
    StringId eventStat(EventIndex event, StringId key) const;

    const Profile& profile_;
    StringId nameKey_;
    std::vector<OpIdentity> ops_;
    std::vector<uint32_t> byFrameworkOp_;             // string id -> op, kNoOp = not parsed yet
    std::vector<uint32_t> byJaxName_;                 // string id of a `name` / hlo_op stat -> op
    std::vector<uint32_t> byMetadata_;                // host metadata -> op (kNoOp) or kUnparsed
    std::unordered_map<std::string, uint32_t> index_; // name '\0' type -> op
};

} // namespace stepscope
