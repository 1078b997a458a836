#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace stepscope {

// The PyTorch rule that joins a runtime launch to the operator that made it, shared by the Kineto
// importer (which gives device work its op's tf_op) and the PyTorch tab's TorchTrace (which
// builds the plugin's op tree). Kineto stamps a launch with the "External id" of its op, and the
// PyTorch profiler's TensorBoard plugin joins them by it (event_parser.py parse_nodes:
// externalid_to_runtime, popped for each op of every tid): an op and its launches can be on
// different threads. Ids are reused (on alexnet_a100_small 47 of 361 launches carry the id of an
// unrelated op elsewhere in time), so only an op that encloses the launch in time takes it.
struct IdSpan {
    uint64_t key = 0; // the External id, with whatever scope the caller gives it (a process)
    int64_t start = 0, end = 0;
};

inline constexpr uint32_t kNoJoinedOp = std::numeric_limits<uint32_t>::max();

// Whether an op [opStart, opEnd] takes a launch [start, end] that carries its External id.
inline bool opEnclosesLaunch(int64_t opStart, int64_t opEnd, int64_t start, int64_t end) {
    return opStart <= start && end <= opEnd;
}

// For each launch, the index of the first op in `ops` (in the order given: the order in which
// ops take launches) with the launch's key that encloses it; kNoJoinedOp where none does.
std::vector<uint32_t> joinByExternalId(std::span<const IdSpan> ops,
                                       std::span<const IdSpan> launches);

} // namespace stepscope
