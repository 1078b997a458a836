#include "model/analysis/MemoryProfile.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>

#include "model/NumberFormat.h"
#include "model/analysis/StepAnalysis.h"
#include "model/analysis/TfDataType.h"

namespace stepscope {

namespace {

constexpr uint32_t kUnmapped = 0xFFFFFFFFu;

// Copies the profile's strings that records use into the input's own table, once each.
class StringRemap {
public:
    StringRemap(const StringPool& pool, std::vector<std::string>& out)
        : pool_(pool)
        , out_(out) {}
    uint32_t operator()(StringId id) {
        if (id == 0) return 0;
        if (remap_.empty()) remap_.assign(pool_.size(), kUnmapped);
        uint32_t& slot = remap_[id];
        if (slot == kUnmapped) {
            slot = uint32_t(out_.size());
            out_.emplace_back(pool_.get(id));
        }
        return slot;
    }

private:
    const StringPool& pool_;
    std::vector<std::string>& out_;
    std::vector<uint32_t> remap_;
};

const Plane& planeOf(const Profile& profile, EventIndex e) {
    return profile.planes()[profile.tracks()[profile.trackOf(e)].plane];
}

struct MemoryId {
    std::string id;
    bool onDevice = false;
};

// XProf's memory id for an event without allocator_name: index_on_host, else device_ordinal (a
// device's memory).
MemoryId numericMemoryId(const Profile& profile, EventIndex e) {
    if (const auto s = profile.findStat(e, "index_on_host"); s && s->isNumber())
        return {std::to_string(s->asInt()), false};
    if (const auto s = profile.findStat(e, "device_ordinal"); s && s->isNumber())
        return {std::to_string(s->asInt()), true};
    return {kNoMemoryId, false};
}

bool hasStepIds(const std::vector<AllocationRecord>& records) {
    return std::any_of(records.begin(), records.end(),
                       [](const AllocationRecord& r) { return r.stepId != kNoStep; });
}

// The overview's steps as time ranges (see memoryProfileInput).
std::vector<MemoryStep> profileSteps(const Profile& profile, const Progress* progress) {
    std::vector<MemoryStep> steps;
    for (const StepRecord& s : analyzeSteps(profile, {}, progress).steps)
        steps.push_back({s.host, s.number, s.beginPs, s.beginPs + s.durationPs});
    return steps;
}

// Numbers that merge breakdown rows compare as XProf's proto fields do: a missing value is 0.
int64_t orZero(int64_t v) {
    return std::max<int64_t>(v, 0);
}

// A breakdown row before merging: an allocation (its record) or one of XProf's two special rows.
struct LiveAllocation {
    int64_t allocationBytes = 0, requestedBytes = 0;
    std::string tfOp, regionType, dataType, shape;
    size_t record = SIZE_MAX; // SIZE_MAX for a special row
    bool allocationRecorded = true, requestedRecorded = true;

    auto key() const {
        return std::tie(allocationBytes, requestedBytes, tfOp, regionType, dataType, shape);
    }
};

std::string dataTypeText(int32_t dataType) {
    return dataType < 0 ? std::string() : tfDataTypeName(dataType);
}

// XProf's UpdateStepId: a record without a step gets the last valid step + 1 (0 before any).
void repairSteps(std::vector<AllocationRecord>& records) {
    int64_t lastValid = -1;
    for (AllocationRecord& r : records) {
        if (r.stepId == kNoStep)
            r.stepId = lastValid + 1;
        else
            lastValid = r.stepId;
    }
}

// Stepscope's steps by time: each record (in time order) takes the last of `steps` (one host's,
// sorted by begin) that begins at or before it, if that step has not ended.
void stepsByTime(std::vector<AllocationRecord>& records, std::span<const MemoryStep> steps) {
    size_t next = 0; // the first step that begins after the record
    for (AllocationRecord& r : records) {
        while (next < steps.size() && steps[next].beginPs <= r.timePs) ++next;
        r.stepId = next > 0 && r.timePs < steps[next - 1].endPs ? steps[next - 1].number : kNoStep;
    }
}

// MemoryProfile::defaultSeries: device series first, then the largest peak, then list order.
size_t defaultSeriesOf(const std::vector<MemorySeries>& series) {
    size_t best = 0;
    for (size_t i = 1; i < series.size(); ++i) {
        const MemorySeries& a = series[i];
        const MemorySeries& b = series[best];
        if (std::pair(a.onDevice, a.summary.peakBytesInUse) >
            std::pair(b.onDevice, b.summary.peakBytesInUse))
            best = i;
    }
    return best;
}

// XProf's UpdateDeallocation: a free takes the metadata of the allocation at its address, which
// is then forgotten (a second free of the address keeps its own). Of two allocations at one
// address without a free between them, the first is kept.
void repairDeallocations(MemorySeries& s) {
    std::unordered_map<uint64_t, size_t> allocationAt;
    for (size_t i = 0; i < s.records.size(); ++i) {
        AllocationRecord& r = s.records[i];
        if (!r.isAllocation()) {
            const auto it = allocationAt.find(r.address);
            if (it == allocationAt.end()) {
                ++s.unmatchedDeallocations;
                continue;
            }
            const AllocationRecord& a = s.records[it->second];
            r.tfOp = a.tfOp;
            r.regionType = a.regionType;
            r.dataType = a.dataType;
            r.tensorShape = a.tensorShape;
            allocationAt.erase(it);
        } else if (!allocationAt.try_emplace(r.address, i).second) {
            ++s.repeatedAllocations;
        }
    }
}

void summarize(MemorySeries& s) {
    MemorySummary& sum = s.summary;
    // XProf's UpdateProfileSummary keeps the event where stack + heap >= the peak so far,
    // visiting events line by line; Stepscope visits them in time order, so among equal peaks the
    // latest in time wins (XProf: the last in line order).
    int64_t peak = 0;
    for (size_t i = 0; i < s.records.size(); ++i) {
        const AllocationRecord& r = s.records[i];
        (r.isAllocation() ? sum.allocations : sum.deallocations)++;
        if (r.bytesInUse() >= peak) {
            peak = r.bytesInUse();
            sum.peakRecord = i;
        }
        // XProf keeps the peak_bytes_in_use of the last event it visits; the allocator's
        // lifetime peak never decreases, so that is the largest, which Stepscope takes directly
        // (independent of line order).
        sum.peakBytesUsageLifetime = std::max(sum.peakBytesUsageLifetime, r.peakBytesInUse);
        if (r.freeMemoryBytes > 0) s.hasFreeMemory = true;
        if (r.stackReservedBytes != kNotRecorded) s.hasStack = true;
        if (!std::isnan(r.fragmentation)) s.hasFragmentation = true;
    }
    const AllocationRecord& p = s.records[sum.peakRecord];
    sum.peakTimePs = p.timePs;
    sum.peakBytesInUse = peak;
    sum.stackAtPeak = p.stackReservedBytes;
    sum.heapAtPeak = p.heapAllocatedBytes;
    sum.freeAtPeak = p.freeMemoryBytes;
    sum.fragmentationAtPeak = p.fragmentation;
    // XProf adds a missing free as 0; without it the capacity is unknown, so Stepscope leaves it
    // empty rather than report stack + heap as the capacity.
    if (p.freeMemoryBytes != kNotRecorded) sum.memoryCapacity = peak + p.freeMemoryBytes;
    // XProf's GetPeakMemoryStep: the step of the last event whose stack + heap equals the peak.
    // Visiting in time order, that is the peak event itself.
    sum.peakStepId = p.stepId;
    // The frontend's warning: the last event's step (after repair) is below 1. Steps taken from
    // the profile are the overview's, whatever their numbers; records outside them have none.
    sum.incompleteSteps = !s.stepsFromProfile && s.records.back().stepId < 1;
}

// XProf's ProcessActiveAllocations and InsertSpecialAllocations, then the merge of equal rows.
void buildBreakdown(MemorySeries& s, const std::vector<std::string>& strings) {
    const MemorySummary& sum = s.summary;
    int64_t unmapped = orZero(sum.heapAtPeak);
    int64_t unmappedDeallocations = 0;
    std::unordered_map<uint64_t, size_t> live; // address -> record
    for (size_t i = 0; i < s.records.size(); ++i) {
        const AllocationRecord& r = s.records[i];
        if (r.timePs > sum.peakTimePs) break;
        // A peak outside every step has no step to walk: every record up to it counts.
        if (sum.peakStepId != kNoStep && r.stepId != sum.peakStepId) continue;
        if (r.isAllocation()) {
            live[r.address] = i;
            unmapped -= orZero(r.allocationBytes);
        } else {
            if (!live.erase(r.address)) unmappedDeallocations += orZero(r.allocationBytes);
            unmapped += orZero(r.allocationBytes);
        }
    }
    // Frees of allocations made before the step return memory that was in use before it, not
    // unused memory.
    unmapped -= unmappedDeallocations;

    std::vector<LiveAllocation> rows;
    rows.reserve(live.size() + 2);
    for (const auto& [address, i] : live) {
        const AllocationRecord& r = s.records[i];
        rows.push_back({orZero(r.allocationBytes), orZero(r.requestedBytes), strings[r.tfOp],
                        strings[r.regionType], dataTypeText(r.dataType), strings[r.tensorShape], i,
                        r.allocationBytes != kNotRecorded, r.requestedBytes != kNotRecorded});
    }
    // XProf writes the special rows' data type as DataTypeString(0), "INVALID".
    const std::string invalid = tfDataTypeName(0);
    if (unmapped > 0)
        rows.push_back({unmapped, unmapped, "unused preallocated device memory", "persist/dynamic",
                        invalid, "unknown"});
    if (sum.stackAtPeak > 0)
        rows.push_back({sum.stackAtPeak, sum.stackAtPeak, "stack", "stack", invalid, "unknown"});
    // XProf's MetadataComparator: sizes descending, then the text fields ascending. The record
    // index breaks ties so that a merged row points at its earliest allocation.
    std::sort(rows.begin(), rows.end(), [](const LiveAllocation& a, const LiveAllocation& b) {
        if (a.allocationBytes != b.allocationBytes) return a.allocationBytes > b.allocationBytes;
        if (a.requestedBytes != b.requestedBytes) return a.requestedBytes > b.requestedBytes;
        const auto ka = std::tie(a.tfOp, a.regionType, a.dataType, a.shape);
        const auto kb = std::tie(b.tfOp, b.regionType, b.dataType, b.shape);
        if (ka != kb) return ka < kb;
        return a.record < b.record;
    });

    Table& t = s.breakdown;
    t = memoryBreakdownHeader();
    for (size_t i = 0; i < rows.size();) {
        size_t j = i + 1;
        while (j < rows.size() && rows[j].key() == rows[i].key()) ++j;
        const LiveAllocation& r = rows[i];
        // "INVALID" (DT_INVALID) means no data type: shown empty (XProf's table prints it).
        t.addRow({r.tfOp, r.allocationRecorded ? double(r.allocationBytes) : Table::missing(),
                  r.requestedRecorded ? double(r.requestedBytes) : Table::missing(), int64_t(j - i),
                  r.regionType, r.dataType == invalid ? std::string() : r.dataType, r.shape});
        s.breakdownEvent.push_back(r.record == SIZE_MAX ? kNoIndex : s.records[r.record].event);
        i = j;
    }
}

std::string millis(int64_t ps) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ps) / 1e9);
    return buf;
}

std::string bytesText(int64_t bytes) {
    const std::string exact = std::to_string(bytes) + " B";
    return bytes < 1024 ? exact : formatBytes(double(bytes)) + " (" + exact + ")";
}

} // namespace

bool isDeviceAllocator(std::string_view allocatorName) {
    std::string lower(allocatorName);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    const bool gpu = lower.find("gpu") != std::string::npos;
    const bool host = lower.find("host") != std::string::npos;
    return (gpu && !host) || lower.starts_with("device_type_");
}

Table memoryBreakdownHeader() {
    Table t;
    t.addColumn("Op name", Table::Type::Text);
    t.addColumn("Allocation size (bytes)", Table::Type::Double, ColumnFormat::Bytes,
                "Bytes the allocator handed out (its chunk size)");
    t.addColumn("Requested size (bytes)", Table::Type::Double, ColumnFormat::Bytes,
                "Bytes the op asked for");
    t.addColumn("Occurrences", Table::Type::Int, ColumnFormat::Plain,
                "Live allocations with the same sizes, op, region type, data type and shape");
    t.addColumn("Region type", Table::Type::Text);
    t.addColumn("Data type", Table::Type::Text);
    t.addColumn("Shape", Table::Type::Text);
    return t;
}

MemoryProfileInput memoryProfileInput(const Profile& profile, const Progress* progress) {
    MemoryProfileInput in;
    for (const Host& h : profile.hosts()) in.hostNames.push_back(h.name);
    if (in.hostNames.empty()) in.hostNames.push_back(std::string());
    StringRemap remap(profile.strings(), in.strings);
    // (host << 32 | allocator string id) -> series; numeric ids are looked up by text.
    std::unordered_map<uint64_t, size_t> byAllocator;
    std::map<std::pair<uint32_t, std::string>, size_t> byId;
    auto seriesFor = [&](uint32_t host, const MemoryId& id) {
        const auto [it, inserted] = byId.try_emplace({host, id.id}, in.series.size());
        if (inserted) in.series.push_back({id.id, host, {}, id.onDevice});
        return it->second;
    };

    auto read = [&](EventIndex e, StringId allocator) {
        const Plane& plane = planeOf(profile, e);
        if (plane.kind != PlaneKind::Host) return;
        const uint32_t host = plane.host;
        size_t series;
        if (allocator != 0) {
            const uint64_t key = uint64_t(host) << 32 | allocator;
            auto it = byAllocator.find(key);
            if (it == byAllocator.end()) {
                const std::string_view name = profile.str(allocator);
                it =
                    byAllocator
                        .emplace(key, seriesFor(host, {std::string(name), isDeviceAllocator(name)}))
                        .first;
            }
            series = it->second;
        } else {
            series = seriesFor(host, numericMemoryId(profile, e));
        }

        const MemoryEvent m = profile.memoryEvent(e);
        AllocationRecord r;
        r.timePs = profile.start(e);
        r.activity = m.deallocation ? MemoryActivity::Deallocation : MemoryActivity::Allocation;
        r.event = e;
        const auto size = [&](MemoryEvent::Field f, int64_t v, int64_t& out) {
            if (!m.has(f)) return;
            if (v < 0)
                ++in.invalidValues;
            else
                out = v;
        };
        size(MemoryEvent::BytesReserved, m.bytesReserved, r.stackReservedBytes);
        size(MemoryEvent::BytesAllocated, m.bytesAllocated, r.heapAllocatedBytes);
        size(MemoryEvent::BytesAvailable, m.bytesAvailable, r.freeMemoryBytes);
        size(MemoryEvent::PeakBytesInUse, m.peakBytesInUse, r.peakBytesInUse);
        size(MemoryEvent::RequestedBytes, m.requestedBytes, r.requestedBytes);
        size(MemoryEvent::AllocationBytes, m.allocationBytes, r.allocationBytes);
        if (m.has(MemoryEvent::Fragmentation)) {
            if (m.fragmentation >= 0 && m.fragmentation <= 1)
                r.fragmentation = m.fragmentation;
            else
                ++in.invalidValues;
        }
        if (m.has(MemoryEvent::DataType)) {
            if (m.dataType >= 0 && m.dataType <= INT32_MAX)
                r.dataType = int32_t(m.dataType);
            else
                ++in.invalidValues;
        }
        r.address = m.address;
        r.stepId = m.stepId;
        r.tfOp = remap(m.tfOp);
        r.regionType = remap(m.regionType);
        r.tensorShape = remap(m.shape);
        in.series[series].records.push_back(r);
    };
    const SideTable<StringId>& events = profile.memoryEvents();
    constexpr size_t kSlice = 0x10000; // entries between progress reports
    for (size_t from = 0; from < events.size(); from += kSlice) {
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Reading allocator events", double(from) / double(events.size()));
        }
        events.forEachIn(from, std::min(events.size(), from + kSlice), read);
    }
    if (std::any_of(in.series.begin(), in.series.end(),
                    [](const MemorySeriesInput& s) { return !hasStepIds(s.records); })) {
        in.steps = profileSteps(profile, progress);
        if (progress && progress->cancelled()) return {};
    }
    return in;
}

MemoryProfile computeMemoryProfile(MemoryProfileInput input, const Progress* progress) {
    MemoryProfile out;
    out.invalidValues = input.invalidValues;
    const bool manyHosts = input.hostNames.size() > 1;
    std::sort(input.steps.begin(), input.steps.end(), [](const MemoryStep& a, const MemoryStep& b) {
        return std::tie(a.host, a.beginPs) < std::tie(b.host, b.beginPs);
    });
    std::sort(input.series.begin(), input.series.end(),
              [](const MemorySeriesInput& a, const MemorySeriesInput& b) {
                  return std::tie(a.host, a.memoryId) < std::tie(b.host, b.memoryId);
              });
    for (size_t k = 0; k < input.series.size(); ++k) {
        MemorySeriesInput& in = input.series[k];
        if (progress) {
            if (progress->cancelled()) return {};
            progress->report("Memory profile", double(k) / double(input.series.size()));
        }
        if (in.records.empty()) continue; // XProf lists only ids with events
        MemorySeries s;
        s.memoryId = std::move(in.memoryId);
        s.host = in.host;
        s.onDevice = in.onDevice;
        s.label = manyHosts && in.host < input.hostNames.size()
                      ? input.hostNames[in.host] + "/" + s.memoryId
                      : s.memoryId;
        s.records = std::move(in.records);
        const auto byTime = [](const AllocationRecord& a, const AllocationRecord& b) {
            return a.timePs < b.timePs;
        };
        if (!std::is_sorted(s.records.begin(), s.records.end(), byTime))
            std::stable_sort(s.records.begin(), s.records.end(), byTime);
        const auto hostSteps = std::equal_range(
            input.steps.begin(), input.steps.end(), MemoryStep{in.host},
            [](const MemoryStep& a, const MemoryStep& b) { return a.host < b.host; });
        s.stepsFromProfile = hostSteps.first != hostSteps.second && !hasStepIds(s.records);
        if (s.stepsFromProfile)
            stepsByTime(s.records, std::span(hostSteps.first, hostSteps.second));
        else
            repairSteps(s.records);
        repairDeallocations(s);
        summarize(s);
        buildBreakdown(s, input.strings);
        out.series.push_back(std::move(s));
    }
    out.strings = std::move(input.strings);
    out.defaultSeries = defaultSeriesOf(out.series);
    return out;
}

MemoryProfile computeMemoryProfile(const Profile& profile, const Progress* progress) {
    MemoryProfileInput input = memoryProfileInput(profile, progress);
    if (progress && progress->cancelled()) return {};
    return computeMemoryProfile(std::move(input), progress);
}

bool hasMemoryProfile(const Profile& profile) {
    const SideTable<StringId>& events = profile.memoryEvents();
    bool found = false;
    events.forEach([&](EventIndex e, StringId) {
        found = found || planeOf(profile, e).kind == PlaneKind::Host;
    });
    return found;
}

const MemorySeries* MemoryProfile::defaultShown() const {
    return defaultSeries < series.size() ? &series[defaultSeries] : nullptr;
}

const MemorySeries* MemoryProfile::find(std::string_view labelOrId) const {
    for (const MemorySeries& s : series)
        if (s.label == labelOrId) return &s;
    return nullptr;
}

std::vector<std::pair<std::string, std::string>>
memoryRecordDetails(const MemoryProfile& profile, const MemorySeries& series, size_t record) {
    std::vector<std::pair<std::string, std::string>> d;
    if (record >= series.records.size()) return d;
    const AllocationRecord& r = series.records[record];
    d.emplace_back("Timestamp", millis(r.timePs));
    d.emplace_back("Event", r.isAllocation() ? "allocation" : "deallocation");
    if (r.requestedBytes != kNotRecorded)
        d.emplace_back("Requested size", bytesText(r.requestedBytes));
    if (r.allocationBytes != kNotRecorded)
        d.emplace_back("Allocation size", bytesText(r.allocationBytes));
    if (r.tfOp) d.emplace_back("Op", profile.str(r.tfOp));
    if (r.stepId != kNoStep) d.emplace_back("Step", std::to_string(r.stepId));
    if (r.regionType) d.emplace_back("Region type", profile.str(r.regionType));
    // As XProf's tooltip: DT_INVALID is no data type.
    if (r.dataType > 0) d.emplace_back("Data type", tfDataTypeName(r.dataType));
    if (r.tensorShape) d.emplace_back("Shape", profile.str(r.tensorShape));
    d.emplace_back("Memory in use", bytesText(r.bytesInUse()));
    return d;
}

} // namespace stepscope
