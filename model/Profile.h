#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/Classification.h"
#include "model/Column.h"
#include "model/CorrelationIds.h"
#include "model/DeviceDetails.h"
#include "model/DurationColumn.h"
#include "model/RunColumn.h"
#include "model/SideTable.h"
#include "model/StartColumn.h"
#include "model/StatList.h"
#include "model/StatValue.h"
#include "model/StringPool.h"

namespace stepscope {

using EventIndex = uint32_t; // global row in the event columns
inline constexpr uint32_t kNoIndex = 0xFFFFFFFFu;

// One host of a run (one `<host>.xplane.pb`).
struct Host {
    std::string name;                   // hostname from the file, or the file's stem
    std::string sourcePath;             // the file it was loaded from; empty for in-memory profiles
    std::vector<std::string> errors;    // XSpace.errors
    std::vector<std::string> warnings;  // XSpace.warnings
    std::vector<std::string> hostnames; // XSpace.hostnames: the host(s) as the tracer named them
};

// Device properties carried as plane stats; 0 / empty where the profile does not give them.
struct DeviceInfo {
    std::string vendor;        // device_vendor
    int computeCapMajor = 0;   // compute_cap_major
    int computeCapMinor = 0;   // compute_cap_minor
    int64_t coreCount = 0;     // core_count: SMs (NVIDIA) or CUs (AMD)
    int64_t clockRateKHz = 0;  // clock_rate
    uint64_t memoryBytes = 0;  // memory_size
    uint64_t bandwidthBps = 0; // memory_bandwidth, bytes per second
};

struct Plane {
    int64_t xplaneId = 0;
    StringId name = 0;
    PlaneKind kind = PlaneKind::Other;
    int deviceOrdinal = -1;
    uint32_t host = 0;
    uint32_t firstTrack = 0;
    uint32_t trackCount = 0;
    uint32_t statBegin = 0, statEnd = 0; // plane-level stats
    DeviceInfo device;
};

// The structs below are elements of columns, which the profile cache writes as bytes: the gaps
// the compiler would leave between their fields (padding, never written, so holding whatever the
// memory held) are named fields set to zero, so that every byte is defined and one profile always
// gives the same cache file. -Wpadded as an error keeps it so when a field is added.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wpadded"

struct Track {
    uint32_t plane = 0;
    uint8_t reserved0[4] = {};
    int64_t lineId = 0; // XLine id: the thread id on hosts, the stream id on GPUs
    int64_t displayId = 0;
    StringId name = 0;
    StringId displayName = 0;
    TrackKind kind = TrackKind::Other;
    bool derived = false;   // a derived line (isDerivedLineId): its events repeat recorded ones
    bool deviceOps = false; // holds the device's ops (isDeviceOpLine): GPU streams, TPU "XLA Ops"
    uint8_t reserved1 = 0;
    uint16_t streamFlags = 0;
    uint8_t reserved2[2] = {};
    int64_t streamId = -1;
    EventIndex firstEvent = 0;
    uint32_t eventCount = 0;
    uint32_t firstDepth = 0; // into Profile's depth offsets: depthCount + 1 entries
    uint32_t depthCount = 0;
    int64_t minStartPs = 0, maxEndPs = 0; // extent of its events; 0,0 when empty
};

// Interned XEventMetadata: events refer to one by index.
struct EventMetadata {
    StringId name = 0;
    StringId displayName = 0;
    uint32_t plane = 0;
    uint8_t reserved[4] = {};
    int64_t xId = 0;
    uint32_t statBegin = 0, statEnd = 0; // metadata-level stats
};

#pragma GCC diagnostic pop

// Allocator bookkeeping of one MemoryAllocation / MemoryDeallocation event. A field the event does
// not record keeps the default below and its bit stays clear in `recorded`; a numeric stat whose
// value cannot be an int64 (a NaN or out-of-range double, a uint64 above 2^63) counts as not
// recorded.
struct MemoryEvent {
    enum Field : uint32_t {
        BytesAllocated = 1u << 0,
        BytesReserved = 1u << 1,
        BytesAvailable = 1u << 2,
        PeakBytesInUse = 1u << 3,
        RequestedBytes = 1u << 4,
        AllocationBytes = 1u << 5,
        Address = 1u << 6,
        Fragmentation = 1u << 7,
        DataType = 1u << 8,
        StepId = 1u << 9,
    };
    StringId allocator = 0; // allocator_name, e.g. "GPU_0_bfc"
    int64_t bytesAllocated = 0, bytesReserved = 0, bytesAvailable = 0, peakBytesInUse = 0;
    int64_t requestedBytes = 0, allocationBytes = 0;
    uint64_t address = 0;
    double fragmentation = 0; // 0..1; written as int or double in real files
    StringId regionType = 0, shape = 0, tfOp = 0;
    int64_t dataType = -1;
    int64_t stepId = -1;
    bool deallocation = false;
    uint32_t recorded = 0; // Field bits

    bool has(Field f) const { return (recorded & f) != 0; }
};

// A host launch (cudaLaunchKernel, ...) joined to the device event it caused, by correlation id
// within one host. Left unwritten when default-constructed (Flow{} is zero), so that a Column of
// flows is sized without a zero-fill.
struct Flow {
    EventIndex launch;
    EventIndex target;
};
// The two orders a profile keeps its flows in: by launch (flows()) and by target (the order
// launchesOf() searches).
inline bool flowByLaunch(const Flow& a, const Flow& b) {
    return a.launch != b.launch ? a.launch < b.launch : a.target < b.target;
}
inline bool flowByTarget(const Flow& a, const Flow& b) {
    return a.target != b.target ? a.target < b.target : a.launch < b.launch;
}

struct EventRange {
    EventIndex begin = 0, end = 0;
    uint32_t size() const { return end - begin; }
    bool empty() const { return begin == end; }
};

// Where a profile's memory goes, in bytes (allocated capacity).
struct ProfileMemory {
    size_t eventColumns = 0; // start, duration, metadata, stat offset; depth and track offsets
    size_t eventStats = 0;   // stat lists, their shapes and keys; metadata, plane stats
    size_t hotStats = 0;     // step ids, correlation ids, kernels, memcpys, ops, memory events
    size_t flows = 0;        // launch -> device joins, and their order by target
    size_t strings = 0;      // the string pool
    size_t structure = 0;    // hosts, planes, tracks, event metadata
    size_t total() const {
        return eventColumns + eventStats + hotStats + flows + strings + structure;
    }
};

// One loaded profile: hosts, planes, tracks, and one columnar event table shared by all.
//
// Events are rows of parallel columns, grouped by track (in track order), then by nesting depth,
// then sorted by start. Within one (track, depth) events never overlap, so both starts and ends
// are sorted and a time window is two binary searches. Times are int64 picoseconds from the
// profile start; startNs() gives the absolute start so that hosts of one run line up.
//
// Immutable after ProfileBuilder::finish(); safe to read from any thread.
class Profile {
public:
    // ---- structure
    const StringPool& strings() const { return strings_; }
    std::string_view str(StringId id) const { return strings_.get(id); }
    const std::vector<Host>& hosts() const { return hosts_; }
    const std::vector<Plane>& planes() const { return planes_; }
    const std::vector<Track>& tracks() const { return tracks_; }
    const std::vector<EventMetadata>& metadata() const { return metadata_; }
    std::span<const Track> tracksOf(const Plane& p) const {
        return {tracks_.data() + p.firstTrack, p.trackCount};
    }
    int64_t startNs() const { return startNs_; }
    int64_t durationPs() const { return durationPs_; }

    // ---- event columns
    size_t eventCount() const { return start_.size(); }
    int64_t start(EventIndex e) const { return start_[e]; }
    int64_t duration(EventIndex e) const { return duration_[e]; }
    int64_t end(EventIndex e) const { return start_[e] + duration_[e]; }
    uint32_t metadataOf(EventIndex e) const { return meta_[e]; }
    StringId nameId(EventIndex e) const { return metadata_[meta_[e]].name; }
    std::string_view name(EventIndex e) const { return strings_.get(nameId(e)); }
    const StartColumn& startColumn() const { return start_; }
    Durations durations() const { return duration_; }
    std::span<const uint32_t> metadataColumn() const { return meta_; }

    uint32_t trackOf(EventIndex e) const;
    uint32_t depthOf(EventIndex e) const;
    // Events of one (track, depth), all of them.
    EventRange eventsAt(uint32_t track, uint32_t depth) const;
    // Events of one (track, depth) that overlap [t0, t1): end > t0 and start < t1. Zero-length
    // events at t0 count as inside.
    EventRange eventsInWindow(uint32_t track, uint32_t depth, int64_t t0, int64_t t1) const;
    // Every event whose metadata name equals `name`, in event order.
    std::vector<EventIndex> eventsByName(std::string_view name) const;

    // ---- stats
    // The event's own stats (XEvent.stats); those of its metadata (XEventMetadata.stats) are
    // metadataStats(metadataOf(e)).
    StatList eventStats(EventIndex e) const {
        return {statBlob_.data() + statBegin_[e],
                {statBlob_.data() + statBlob_.size(), strings_.size(), shapeBegin_.data(),
                 shapeBegin_.size() - 1, shapeTags_.data()},
                statKeys_.data()};
    }
    std::span<const StatValue> metadataStats(uint32_t meta) const {
        const EventMetadata& m = metadata_[meta];
        return {stats_.data() + m.statBegin, m.statEnd - m.statBegin};
    }
    std::span<const StatValue> planeStats(const Plane& p) const {
        return {stats_.data() + p.statBegin, p.statEnd - p.statBegin};
    }
    // An event's stat by name, looking at the event first and then its metadata.
    std::optional<StatValue> findStat(EventIndex e, std::string_view key) const;

    // ---- hot stats, decoded once at load
    // Step (group) id of an event, -1 where it has none.
    int32_t groupId(EventIndex e) const { return groupIds_.at(e); }
    // The same, stored by runs; RunColumn<int32_t>::Cursor reads it along a walk over events.
    const RunColumn<int32_t>& groupIds() const { return groupIds_; }
    const CorrelationIds& correlationIds() const { return correlation_; }
    // Kernel geometry of device stream events (GPU/TPU planes, non-derived lines): the side
    // table maps an event to an index into kernelDetailsTable().
    const SideTable<uint32_t>& kernels() const { return kernels_; }
    const std::vector<KernelDetails>& kernelDetailsTable() const { return kernelDetails_; }
    const KernelDetails* kernelDetails(EventIndex e) const {
        const uint32_t* i = kernels_.find(e);
        return i ? &kernelDetails_[*i] : nullptr;
    }
    const SideTable<MemcpyDetails>& memcpys() const { return memcpys_; }
    // MemoryAllocation / MemoryDeallocation events, each with its allocator (allocator_name).
    const SideTable<StringId>& memoryEvents() const { return memory_; }
    // The allocator fields of one memory event, decoded from its stats (binary, no parsing).
    MemoryEvent memoryEvent(EventIndex e) const;
    // Framework op of an event (`tf_op` or the older `level 0` stat), as a string id.
    const SideTable<StringId>& frameworkOps() const { return tfOps_; }
    const SideTable<StringId>& hloOps() const { return hloOps_; }

    // Launch -> device flows, sorted by launch.
    const Column<Flow>& flows() const { return flows_; }
    std::span<const Flow> flowsFrom(EventIndex launch) const;
    // The launches whose flow ends at `target` (usually one).
    std::vector<EventIndex> launchesOf(EventIndex target) const;

    // Bytes held by every column, stat, side table and string of this profile.
    size_t memoryBytes() const;
    ProfileMemory memoryUsage() const;

private:
    friend class ProfileBuilder;
    friend class ProfileCache; // writes and reads every column

    StringPool strings_;
    std::vector<Host> hosts_;
    std::vector<Plane> planes_;
    std::vector<Track> tracks_;
    std::vector<EventMetadata> metadata_;
    int64_t startNs_ = 0;
    int64_t durationPs_ = 0;

    StartColumn start_;
    DurationColumn duration_;
    Column<uint32_t> meta_;
    Column<uint32_t> statBegin_;     // offset of each event's list in statBlob_
    Column<uint8_t> statBlob_;       // see StatList.h
    std::vector<StringId> statKeys_; // stat key index -> stat name
    // The shapes of the stat lists (StatList.h): shape s is shapeTags_[shapeBegin_[s],
    // shapeBegin_[s + 1]); shape 0 is the empty list.
    std::vector<uint32_t> shapeBegin_{0, 0};
    std::vector<uint32_t> shapeTags_;
    std::vector<StatValue> stats_; // metadata and plane stats (few), fixed width
    std::vector<uint32_t> depthOffsets_;
    std::vector<EventIndex> trackStarts_; // firstEvent of each track, for trackOf()

    RunColumn<int32_t> groupIds_;
    CorrelationIds correlation_;
    SideTable<uint32_t> kernels_;
    std::vector<KernelDetails> kernelDetails_;
    SideTable<MemcpyDetails> memcpys_;
    SideTable<StringId> memory_;
    SideTable<StringId> tfOps_;
    SideTable<StringId> hloOps_;
    Column<Flow> flows_;             // sorted by launch
    Column<uint32_t> flowsByTarget_; // indices into flows_, sorted by (target, launch)
};

} // namespace stepscope
