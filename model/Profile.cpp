#include "model/Profile.h"

#include "model/LaneWindow.h"

namespace stepscope {

uint32_t Profile::trackOf(EventIndex e) const {
    const auto it = std::upper_bound(trackStarts_.begin(), trackStarts_.end(), e);
    // Empty tracks share their firstEvent with the next track; upper_bound lands after all of
    // them, on the track that holds e.
    return static_cast<uint32_t>(it - trackStarts_.begin()) - 1;
}

uint32_t Profile::depthOf(EventIndex e) const {
    const Track& t = tracks_[trackOf(e)];
    const auto first = depthOffsets_.begin() + t.firstDepth;
    const auto it = std::upper_bound(first, first + t.depthCount + 1, e);
    return static_cast<uint32_t>(it - first) - 1;
}

EventRange Profile::eventsAt(uint32_t track, uint32_t depth) const {
    const Track& t = tracks_[track];
    if (depth >= t.depthCount) return {};
    return {depthOffsets_[t.firstDepth + depth], depthOffsets_[t.firstDepth + depth + 1]};
}

EventRange Profile::eventsInWindow(uint32_t track, uint32_t depth, int64_t t0, int64_t t1) const {
    return eventsOverlapping(start_, duration_, eventsAt(track, depth), t0, t1);
}

std::vector<EventIndex> Profile::eventsByName(std::string_view name) const {
    std::vector<EventIndex> out;
    const StringId id = strings_.find(name);
    if (id == StringPool::kNotFound) return out;
    std::vector<bool> match(metadata_.size(), false);
    bool any = false;
    for (size_t m = 0; m < metadata_.size(); ++m)
        if (metadata_[m].name == id) match[m] = any = true;
    if (!any) return out;
    for (EventIndex e = 0; e < meta_.size(); ++e)
        if (match[meta_[e]]) out.push_back(e);
    return out;
}

std::optional<StatValue> Profile::findStat(EventIndex e, std::string_view key) const {
    const StringId id = strings_.find(key);
    if (id == StringPool::kNotFound) return std::nullopt;
    for (const StatValue& s : eventStats(e))
        if (s.key == id) return s;
    for (const StatValue& s : metadataStats(meta_[e]))
        if (s.key == id) return s;
    return std::nullopt;
}

namespace {
// A numeric stat as an int64, if it is one: doubles must be finite and in range, uint64 values
// at most INT64_MAX.
std::optional<int64_t> statInt(const StatValue& s) {
    if (s.isText()) return std::nullopt;
    if (s.type == StatType::Double) {
        const double d = s.asDouble();
        if (!(d >= -9.2e18 && d <= 9.2e18)) return std::nullopt; // also false for NaN
        return static_cast<int64_t>(d);
    }
    if (s.type == StatType::Uint64 && s.raw > uint64_t(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(s.raw);
}
} // namespace

MemoryEvent Profile::memoryEvent(EventIndex e) const {
    MemoryEvent m;
    m.deallocation = name(e) == "MemoryDeallocation";
    const auto setInt = [&m](const StatValue& s, int64_t& field, MemoryEvent::Field bit) {
        if (const auto v = statInt(s)) {
            field = *v;
            m.recorded |= bit;
        }
    };
    const auto apply = [&](const StatValue& s) {
        const std::string_view key = strings_.get(s.key);
        if (key == "allocator_name" && s.isText())
            m.allocator = s.asString();
        else if (key == "bytes_allocated")
            setInt(s, m.bytesAllocated, MemoryEvent::BytesAllocated);
        else if (key == "bytes_reserved")
            setInt(s, m.bytesReserved, MemoryEvent::BytesReserved);
        else if (key == "bytes_available")
            setInt(s, m.bytesAvailable, MemoryEvent::BytesAvailable);
        else if (key == "peak_bytes_in_use")
            setInt(s, m.peakBytesInUse, MemoryEvent::PeakBytesInUse);
        else if (key == "requested_bytes")
            setInt(s, m.requestedBytes, MemoryEvent::RequestedBytes);
        else if (key == "allocation_bytes")
            setInt(s, m.allocationBytes, MemoryEvent::AllocationBytes);
        else if (key == "addr" && s.isNumber()) {
            // Addresses are written as int64 or uint64; the bits are the address either way.
            m.address = s.type == StatType::Double ? uint64_t(statInt(s).value_or(0)) : s.raw;
            m.recorded |= MemoryEvent::Address;
        } else if (key == "fragmentation" && s.isNumber()) {
            m.fragmentation = s.asDouble();
            m.recorded |= MemoryEvent::Fragmentation;
        } else if (key == "region_type" && s.isText())
            m.regionType = s.asString();
        else if (key == "data_type")
            setInt(s, m.dataType, MemoryEvent::DataType);
        else if (key == "shape" && s.isText())
            m.shape = s.asString();
        else if (key == "tf_op" && s.isText())
            m.tfOp = s.asString();
        else if (key == "group_id")
            setInt(s, m.stepId, MemoryEvent::StepId);
    };
    for (const StatValue& s : metadataStats(meta_[e])) apply(s);
    for (const StatValue& s : eventStats(e)) apply(s);
    return m;
}

std::span<const Flow> Profile::flowsFrom(EventIndex launch) const {
    const auto lo = std::lower_bound(flows_.begin(), flows_.end(), launch,
                                     [](const Flow& f, EventIndex e) { return f.launch < e; });
    auto hi = lo;
    while (hi != flows_.end() && hi->launch == launch) ++hi;
    return {flows_.data() + (lo - flows_.begin()), static_cast<size_t>(hi - lo)};
}

std::vector<EventIndex> Profile::launchesOf(EventIndex target) const {
    std::vector<EventIndex> out;
    auto it = std::lower_bound(flowsByTarget_.begin(), flowsByTarget_.end(), target,
                               [this](uint32_t f, EventIndex e) { return flows_[f].target < e; });
    for (; it != flowsByTarget_.end() && flows_[*it].target == target; ++it)
        out.push_back(flows_[*it].launch);
    return out;
}

ProfileMemory Profile::memoryUsage() const {
    auto vec = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    ProfileMemory m;
    m.eventColumns = start_.memoryBytes() + duration_.memoryBytes() + vec(meta_) + vec(statBegin_) +
                     vec(depthOffsets_) + vec(trackStarts_);
    m.eventStats =
        vec(statBlob_) + vec(statKeys_) + vec(shapeBegin_) + vec(shapeTags_) + vec(stats_);
    m.hotStats = groupIds_.memoryBytes() + vec(kernelDetails_) + correlation_.memoryBytes() +
                 kernels_.memoryBytes() + memcpys_.memoryBytes() + memory_.memoryBytes() +
                 tfOps_.memoryBytes() + hloOps_.memoryBytes();
    m.flows = vec(flows_) + vec(flowsByTarget_);
    m.strings = strings_.memoryBytes();
    m.structure = vec(planes_) + vec(tracks_) + vec(metadata_);
    for (const Host& h : hosts_) {
        m.structure += sizeof(Host) + h.name.capacity() + h.sourcePath.capacity();
        for (const auto& s : h.errors) m.structure += s.capacity() + sizeof(s);
        for (const auto& s : h.warnings) m.structure += s.capacity() + sizeof(s);
    }
    return m;
}

size_t Profile::memoryBytes() const {
    return memoryUsage().total();
}

} // namespace stepscope
