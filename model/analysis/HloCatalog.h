#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/analysis/Precision.h"
#include "model/xspace/HloProto.h"

namespace stepscope {

// The HLO instruction a device event ran for.
struct HloOpRef {
    const HloModule* module = nullptr;
    const HloInstruction* instruction = nullptr;
    // Found by aligning a command buffer launch with the schedule (CommandBufferAlignment.h),
    // not named by the event's hlo_op.
    bool viaCommandBuffer = false;
    // The instruction's facts, worked out once when the catalog is made (instructionPrecision(),
    // isMatrixInstruction()).
    Precision precision = Precision::Unknown;
    bool matrix = false;
    explicit operator bool() const { return instruction != nullptr; }
};

// The HLO modules of a profile and the instruction each device event ran for.
//
// Modules: every XEventMetadata of a host's `/host:metadata` plane with a Bytes stat `Hlo Proto`
// is decoded (decodeHloProto) and indexed by (host, program_id) (its `program_id` stat, else
// the module's id) and by (host, module name). Several modules can share a name (JAX compiles
// `jit__normal` once per shape): a name then finds none, and events are matched by program_id.
//
// Events: device events (Track::deviceOps) with an `hlo_op` stat, in one pass when the catalog
// is made. An event's module is the one of its host named by its `program_id`, else by its
// `hlo_module`. Its instruction is the one its hlo_op names (the innermost of a "::" nest, see
// hloOpName()). Events whose hlo_op names no instruction of the module and that carry
// `cuda_graph_id` ran inside an XLA command buffer: the events of one launch (same track,
// module and correlation id), by start, are aligned with a scheduled computation of the module
// (CommandBufferSchedule; every computation with a schedule is tried, the one that attributes
// the most events wins, the entry computation on a tie). Alignments are cached by (module,
// sequence of event names), so the replays of one graph cost one alignment. Events of a module
// without an HLO proto, command buffer events without a correlation id, and events that neither
// name an instruction nor align get no instruction.
//
// Immutable once made; safe to read from any thread. Holds a reference to the profile.
class HloCatalog {
public:
    explicit HloCatalog(const Profile& profile, const Progress* progress = nullptr);
    HloCatalog(HloCatalog&&) = default;

    // The profile holds no HLO proto.
    bool empty() const { return modules_.empty(); }
    // One line per module that failed to decode, naming the module and the problem.
    const std::vector<std::string>& errors() const { return errors_; }

    // Every decoded module, in metadata order, with the host it came from.
    struct Entry {
        uint32_t host = 0;
        int64_t programId = 0;
        std::unique_ptr<HloModule> module;
    };
    const std::vector<Entry>& modules() const { return modules_; }
    const HloModule* module(uint32_t host, int64_t programId) const;

    // The instruction a device event ran for; empty when unknown. O(log n) in the events that
    // carry hlo_op.
    HloOpRef instructionOf(EventIndex event) const;

    // instructionOf() for events asked for in increasing order (a pass over a track), at O(1)
    // amortized; an event before the last one asked for is found by binary search.
    class Cursor {
    public:
        explicit Cursor(const HloCatalog& catalog);
        HloOpRef at(EventIndex event);

    private:
        const HloCatalog& catalog_;
        SideCursor<StringId> entries_; // over the profile's hloOps()
    };

    // metadata.op_name, the framework op path ("" when none is recorded).
    std::string_view opPath(const HloOpRef& ref) const;

private:
    HloOpRef refAt(size_t hloOpIndex) const;
    void decodeModules(const Progress* progress);
    void attributeEvents(const Progress* progress);
    uint32_t refIndex(const HloModule* module, const HloInstruction* instruction, bool viaGraph);

    const Profile* profile_;
    std::vector<Entry> modules_;
    std::vector<std::string> errors_;
    std::map<std::pair<uint32_t, int64_t>, uint32_t> byProgram_;  // (host, program id) -> module
    std::map<std::pair<uint32_t, std::string>, uint32_t> byName_; // kSeveral: more than one
    std::vector<HloOpRef> refs_;       // distinct refs; [0] is the empty one
    std::vector<uint32_t> refOfHloOp_; // per entry of profile.hloOps(): index into refs_
    std::unordered_map<uintptr_t, uint32_t> refIndex_; // instruction | viaGraph -> refs_
};

} // namespace stepscope
