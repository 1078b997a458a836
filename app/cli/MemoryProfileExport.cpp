#include "app/cli/MemoryProfileExport.h"

#include <stdexcept>

#include "model/Json.h"
#include "model/ToolId.h"
#include "model/analysis/MemoryProfile.h"
#include "model/analysis/TfDataType.h"

namespace stepscope::cli {

namespace {

// The series the options ask for; nullptr when the profile has no allocator events.
const MemorySeries* selectedSeries(const MemoryProfile& memory, const ExportOptions& options) {
    const auto it = options.find("memory-id");
    if (it == options.end()) return memory.defaultShown();
    if (const MemorySeries* s = memory.find(it->second)) return s;
    std::string known;
    for (const MemorySeries& s : memory.series) known += (known.empty() ? "" : ", ") + s.label;
    throw std::runtime_error(
        "unknown memory id '" + it->second + "' (" +
        (known.empty() ? "the profile has no allocator events" : "the profile has: " + known) +
        ")");
}

// A size (kNotRecorded) or step (kNoStep) the profile does not have is null.
void valueOrNull(JsonWriter& json, std::string_view key, int64_t value, int64_t none) {
    json.key(key);
    if (value == none)
        json.null();
    else
        json.value(value);
}

void bytesOrNull(JsonWriter& json, std::string_view key, int64_t bytes) {
    valueOrNull(json, key, bytes, kNotRecorded);
}

void writeSummary(JsonWriter& json, const MemorySeries& s) {
    const MemorySummary& m = s.summary;
    json.key("summary").beginObject();
    json.field("allocations", uint64_t(m.allocations));
    json.field("deallocations", uint64_t(m.deallocations));
    bytesOrNull(json, "memory_capacity_bytes", m.memoryCapacity);
    bytesOrNull(json, "peak_heap_usage_lifetime_bytes", m.peakBytesUsageLifetime);
    json.field("peak_memory_usage_bytes", m.peakBytesInUse);
    json.field("peak_time_ps", m.peakTimePs);
    bytesOrNull(json, "stack_reservation_bytes", m.stackAtPeak);
    bytesOrNull(json, "heap_allocation_bytes", m.heapAtPeak);
    bytesOrNull(json, "free_memory_bytes", m.freeAtPeak);
    json.field("fragmentation_percent", m.fragmentationAtPeak * 100); // NaN writes null
    valueOrNull(json, "peak_step", m.peakStepId, kNoStep);
    json.field("steps_from_profile", s.stepsFromProfile);
    json.field("steps_may_be_incomplete", m.incompleteSteps);
    json.field("deallocations_without_allocation", uint64_t(s.unmatchedDeallocations));
    json.field("allocations_at_an_allocated_address", uint64_t(s.repeatedAllocations));
    json.endObject();
}

void writeTimeline(JsonWriter& json, const MemoryProfile& memory, const MemorySeries& s) {
    json.key("timeline").beginArray();
    for (const AllocationRecord& r : s.records) {
        json.beginObject();
        json.field("time_ps", r.timePs);
        json.field("event", r.isAllocation() ? "allocation" : "deallocation");
        bytesOrNull(json, "stack_bytes", r.stackReservedBytes);
        bytesOrNull(json, "heap_bytes", r.heapAllocatedBytes);
        bytesOrNull(json, "free_bytes", r.freeMemoryBytes);
        json.field("fragmentation_percent", r.fragmentation * 100);
        bytesOrNull(json, "peak_bytes_in_use", r.peakBytesInUse);
        bytesOrNull(json, "requested_bytes", r.requestedBytes);
        bytesOrNull(json, "allocation_bytes", r.allocationBytes);
        json.field("address", r.address);
        json.field("op", memory.str(r.tfOp));
        valueOrNull(json, "step", r.stepId, kNoStep);
        json.field("region_type", memory.str(r.regionType));
        json.key("data_type");
        if (r.dataType < 0)
            json.null();
        else
            json.value(tfDataTypeName(r.dataType));
        json.field("shape", memory.str(r.tensorShape));
        json.endObject();
    }
    json.endArray();
}

} // namespace

Table memoryProfileCsv(const Profile& profile, const ExportOptions& options) {
    const MemoryProfile memory = computeMemoryProfile(profile);
    const MemorySeries* s = selectedSeries(memory, options);
    return s ? s->breakdown : memoryBreakdownHeader();
}

std::string memoryProfileJson(const Profile& profile, const ExportOptions& options) {
    const MemoryProfile memory = computeMemoryProfile(profile);
    const MemorySeries* s = selectedSeries(memory, options);
    JsonWriter json;
    json.beginObject().field("tool", toolKey(ToolId::MemoryProfile));
    json.key("memory_id");
    if (s)
        json.value(s->label);
    else
        json.null();
    json.key("memory_ids").beginArray();
    for (const MemorySeries& m : memory.series) json.value(m.label);
    json.endArray();
    json.field("impossible_values", memory.invalidValues);
    if (s) {
        writeSummary(json, *s);
        writeTimeline(json, memory, *s);
        json.key("breakdown").table(s->breakdown);
    } else {
        json.key("summary").null();
        json.key("timeline").beginArray().endArray();
        json.key("breakdown").table(memoryBreakdownHeader());
    }
    json.endObject();
    return json.take();
}

} // namespace stepscope::cli
