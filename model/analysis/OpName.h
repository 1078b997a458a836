#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/HloCatalog.h"

namespace stepscope {

// What kind of op a framework op name names, as XProf's ParseTfOpFullname decides it
// (xla/tsl/profiler/utils/tf_op_utils.cc). Unknown means "not an op name".
enum class OpCategory : uint8_t {
    Unknown,
    TensorFlow,
    Jax,
    TfData,
    MemcpyHToD,
    MemcpyDToH,
    MemcpyDToD,
    MemcpyHToH
};

struct ParsedOp {
    OpCategory category = OpCategory::Unknown;
    std::string_view name; // the op (node) name; the whole text when Unknown
    std::string_view type; // empty when Unknown
};

// XProf's ParseTfOpFullname, rule for rule:
//   no ':'                          "MEMCPYHToD..." (any case) etc. are copy ops of that type;
//                                   anything else is Unknown
//   "Iterator::Prefetch::Map"       tf.data: name = the whole text, type "Dataset"
//   "name:Type"                     split at the FIRST ':'; TensorFlow when name matches
//                                   [A-Za-z0-9.][A-Za-z0-9_./>-]* and Type [A-Z_][A-Za-z0-9_]*
//   "name:type" / "path/type_3:"    JAX when the type (or, if empty, the last '/' component of
//                                   the name without a numeric "_N" suffix) matches
//                                   [a-z_][a-z0-9_]*(\[.*\])?; the "[...]" part is dropped
//   "name:"                         otherwise TensorFlow, typed by that last component
//                                   ("XlaModule:" is the op XlaModule of type XlaModule)
//   anything else                   Unknown
ParsedOp parseTfOpFullname(std::string_view fullName);

// Whether a HOST event's own name is a framework op: parseTfOpFullname() knows its category.
// Runtime events (ExecutorState::Process, MemoryAllocation, cudaLaunchKernel, kernel names,
// Python frames) are not.
bool isHostOpName(std::string_view eventName);

// The HLO instruction an `hlo_op` stat names: XLA nests instructions with "::"
// ("while.1::fusion.3"); as XProf (GpuEventStats in xprof/utils/gpu_event_stats.cc, which keeps
// hlo_op_names.back()), the innermost one counts.
std::string_view hloOpName(std::string_view hloOp);

// The framework op an analysis attributes an event to.
struct OpIdentity {
    std::string name; // op (node) name; for JAX the op path "jit(f)/.../dot_general"
    std::string type; // op type ("MatMul", "dot_general", "Dataset", "Unknown")
};

// The type shown for ops whose type is not known (XProf's device tf-stats rows use the same word
// for device ops without a parseable framework op; see DeviceTfOpMetricsDbBuilder in
// xprof/utils/op_metrics_db_utils.cc).
inline constexpr std::string_view kUnknownOpType = "Unknown";

// Interns the ops one analysis meets, each string parsed once (cached by string id and by
// metadata), so that a pass over millions of events does no string work.
//
// Host events (hostOp): in XProf's order (CollectTfOpsFromHostThreadsXPlane and
// CollectTfActivities in xprof/convert/xplane_to_op_metrics_db.cc):
//   1. an input-pipeline stage: an event with the stats `input_pipeline_stage_id` and
//      `input_pipeline_stage_category` is the op named by the event, of the category's type;
//   2. an event whose own name parses as an op (isHostOpName);
//   3. an event with a non-empty `tf_op` stat (XLA CPU ops, TraceMe stages) is that op, parsed.
//      Stepscope departs from XProf here for runtime events, which merely carry the op they
//      serve: memory allocator events and launches (events with a correlation id) are not ops,
//      so no op is counted twice. XProf counts an event that is an op both by its name and by
//      its tf_op twice; Stepscope counts it once, by its name.
//   PyTorch (Kineto) traces, which XProf does not read: an event of category `cpu_op` (2021:
//   `Operator`) whose name is no TensorFlow/JAX/tf.data op name is the op of its own name
//   ("aten::mm"), of the same type (PyTorch names an operator by its kind); `ProfilerStep#N` is a
//   step, not an op (as the PyTorch profiler's TensorBoard plugin,
//   tb_plugin/torch_tb_profiler/profiler/node.py is_operator_node).
// Device events (deviceOp): the event's framework op (Profile::frameworkOps(): `tf_op`, or the
// older `level 0`, which XProf no longer reads), parsed (a PyTorch op name, which the Kineto
// importer writes there from the cpu_op that launched the work, is that op); a framework op that
// parses to nothing names an op of type "Unknown". JAX writes only the module annotation
// "XlaModule:" there; for such events Stepscope names the op by the JAX `name` stat (the op path,
// type = its last component), then by the HLO instruction the HloCatalog attributes the event
// to: its op metadata's op_name (the same path `name` carries), else its name (kernels of XLA
// command buffers carry only `hlo_op: command_buffer_N`; the catalog finds their instruction by
// the module's schedule, so they count as the op they ran for, as with command buffers off),
// then by the instruction `hlo_op` names (type = its name without the ".N" instruction number),
// and only then "XlaModule". XProf reads the op path and type from the HLO proto's op metadata
// too, but attributes command-buffer kernels to the command buffer (openxla/xprof#3070).
class OpCatalog {
public:
    static constexpr uint32_t kNoOp = 0xFFFFFFFFu;

    // `hlo`: the profile's HLO catalog, or null to name device ops without it.
    OpCatalog(const Profile& profile, const HloCatalog* hlo);

    // The op of a host event (rules above), or kNoOp. `tfOp` is its framework-op stat (0 when
    // none); `runtime` says it is a launch or an allocator event.
    uint32_t hostOp(EventIndex event, StringId tfOp, bool runtime);
    // The op of a device event whose framework op is `frameworkOp` and hlo_op is `hloOp` (string
    // ids, 0 where the event has none), or kNoOp when it has neither.
    uint32_t deviceOp(EventIndex event, StringId frameworkOp, StringId hloOp);
    // The row of device work no op claims: named by the event (its kernel or copy), of type
    // "Unknown", so every device event's time lands in exactly one row.
    uint32_t unclaimedOp(EventIndex event);

    const OpIdentity& op(uint32_t index) const { return ops_[index]; }
    const std::vector<OpIdentity>& ops() const { return ops_; }
    size_t size() const { return ops_.size(); }

private:
    uint32_t intern(std::string_view name, std::string_view type);
    uint32_t fromFrameworkOp(StringId id);
    uint32_t fromOpPath(StringId id);
    uint32_t fromHloOp(StringId id);
    uint32_t opOfPath(std::string_view path);
    uint32_t fromInstruction(const HloOpRef& ref);
    uint32_t inputPipelineStage(EventIndex event);
    StringId eventStat(EventIndex event, StringId key) const;
    bool isTorchOp(StringId name) const { return name < torchOps_.size() && torchOps_[name]; }

    const Profile& profile_;
    const HloCatalog* hlo_;
    std::optional<HloCatalog::Cursor> hloCursor_; // with hlo_
    StringId nameKey_, stageIdKey_, stageCategoryKey_;
    std::vector<OpIdentity> ops_;
    std::vector<uint32_t> byFrameworkOp_; // string id -> op (or a marker), see OpName.cpp
    std::vector<uint32_t> byOpPath_;      // string id of a JAX `name` stat -> op
    std::vector<uint32_t> byHloOp_;       // string id of an hlo_op stat -> op
    std::vector<uint32_t> byHostName_;    // metadata -> op (kNoOp) for host events
    std::vector<uint32_t> unclaimed_;     // metadata -> unclaimed op
    std::vector<bool> torchOps_;          // string id -> names a PyTorch cpu_op
    std::unordered_map<const HloInstruction*, uint32_t> byInstruction_;
    std::unordered_map<std::string, uint32_t> index_; // name '\0' type -> op
};

} // namespace stepscope
