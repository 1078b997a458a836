#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"

namespace stepscope {

// The memory profile: allocator memory over time, its peak, and what was live at the peak, with
// XProf's definitions (openxla/xprof xprof/convert/xplane_to_memory_profile.cc, the proto
// plugin/xprof/protobuf/memory_profile.proto, and the page in
// frontend/app/components/memory_profile/: memory_profile_summary, memory_timeline_graph,
// memory_breakdown_table). Where Stepscope departs from XProf, the comment says so.
//
// The analysis does not know where its records came from. Its input is a plain list of allocator
// records per memory id (MemoryProfileInput), and every source reaches it through one of two
// doors:
//   - memoryProfileInput(const Profile&): allocator events in a loaded profile. TensorFlow and JAX
//     XSpaces write them as MemoryAllocation / MemoryDeallocation events on /host:CPU threads.
//     PyTorch's `[memory]` instant events come through this same door: the Kineto importer writes
//     them as MemoryAllocation / MemoryDeallocation host events with the same stat names
//     (allocator_name "GPU_0" / "CPU", bytes_allocated = "Total Allocated", allocation_bytes =
//     |"Bytes"|, addr = "Addr"). PyTorch's "Total Reserved" includes what is allocated, so it
//     maps to bytes_available = "Total Reserved" - "Total Allocated" (cached, free for reuse),
//     not to bytes_reserved, which this analysis stacks under the heap as XProf's "stack". An
//     allocator whose "Total Reserved" is 0 throughout (PyTorch's CPU allocator caches nothing)
//     records no reserved memory: its events carry no bytes_available (free is not recorded).
//   - CUPTI memory records (CUPTI_ACTIVITY_KIND_MEMORY2 from our capture) come through the same
//     door: the capture's converter writes them as MemoryAllocation / MemoryDeallocation events
//     (allocator_name "GPU_<device>_cuda", bytes_allocated = the running sum of live allocation
//     bytes) on the XSpace's /host:CPU plane.
// Neither PyTorch's nor CUPTI's records carry a step (group_id): they take the step whose time
// range holds them, from the steps the overview finds (see MemoryProfileInput::steps).

// A byte count or id the source did not record (or recorded as something impossible, such as a
// negative size).
inline constexpr int64_t kNotRecorded = -1;
// The step of a record that lies in no step.
inline constexpr int64_t kNoStep = -1;

enum class MemoryActivity : uint8_t { Allocation, Deallocation };

// One allocator event. Strings are indices into MemoryProfileInput::strings (0 is "").
struct AllocationRecord {
    int64_t timePs = 0; // from the profile start (Stepscope's time base; see README)
    MemoryActivity activity = MemoryActivity::Allocation;
    // The allocator's state right after the event (XProf's MemoryAggregationStats).
    int64_t stackReservedBytes = kNotRecorded; // bytes_reserved
    int64_t heapAllocatedBytes = kNotRecorded; // bytes_allocated
    int64_t freeMemoryBytes = kNotRecorded;    // bytes_available
    int64_t peakBytesInUse = kNotRecorded;     // peak_bytes_in_use: over the allocator's life
    double fragmentation = std::numeric_limits<double>::quiet_NaN(); // 0..1
    // What the event did (XProf's MemoryActivityMetadata).
    int64_t requestedBytes = kNotRecorded;  // requested_bytes
    int64_t allocationBytes = kNotRecorded; // allocation_bytes: the chunk handed out or freed
    uint64_t address = 0;                   // addr
    uint32_t tfOp = 0, regionType = 0, tensorShape = 0; // tf_op, region_type, shape
    int32_t dataType = -1;                              // data_type (TF DataType enum); -1 none
    int64_t stepId = kNoStep;                           // group_id, or the step that holds it
    EventIndex event = kNoIndex; // the source event, for "show in trace viewer"

    bool isAllocation() const { return activity == MemoryActivity::Allocation; }
    // Bytes in use after the event: stack + heap, a missing value counting 0 (as XProf's proto
    // defaults do).
    int64_t bytesInUse() const {
        return std::max<int64_t>(stackReservedBytes, 0) + std::max<int64_t>(heapAllocatedBytes, 0);
    }
};

struct MemorySeriesInput {
    std::string memoryId; // allocator_name (or index_on_host / device_ordinal, as XProf)
    uint32_t host = 0;    // index into MemoryProfileInput::hostNames
    std::vector<AllocationRecord> records; // any order
    bool onDevice = false; // device (GPU) memory, not host memory: see isDeviceAllocator
};

// One training step of one host, as the overview finds it: [beginPs, endPs) in the records'
// time base.
struct MemoryStep {
    uint32_t host = 0;
    int64_t number = 0;
    int64_t beginPs = 0, endPs = 0;
};

struct MemoryProfileInput {
    std::vector<std::string> strings{std::string()}; // strings[0] == ""
    std::vector<std::string> hostNames;
    std::vector<MemorySeriesInput> series;
    // The profile's steps, for series whose records carry no step id (see computeMemoryProfile).
    std::vector<MemoryStep> steps;
    uint64_t invalidValues = 0; // numeric fields dropped as impossible (negative sizes, ...)
};

// Whether an allocator_name names device memory (Stepscope's rule; XProf does not classify
// allocators): it contains "gpu" (any case) and not "host", as TensorFlow's and JAX's
// "GPU_0_bfc", PyTorch's "GPU_0" and the CUPTI capture's "GPU_0_cuda" (but not TensorFlow's
// pinned "gpu_host_bfc"), or it is the Kineto importer's "device_type_<type>_<id>" (a PyTorch
// device other than CPU and CUDA).
bool isDeviceAllocator(std::string_view allocatorName);

// The adapter from a loaded profile: every MemoryAllocation / MemoryDeallocation event on a host
// plane (XProf reads only /host:CPU), grouped by memory id and host. The memory id is, as in
// XProf, the event's allocator_name, else its index_on_host or device_ordinal as a number;
// events with none go to kNoMemoryId. A series is on a device when its allocator_name says so
// (isDeviceAllocator) or its id is a device_ordinal. Negative sizes and a fragmentation outside
// 0..1 are dropped as not recorded (counted in invalidValues). When some series carries no
// step id at all, `steps` holds the steps analyzeSteps finds (the overview's step numbers: for
// PyTorch, ProfilerStep#N), each spanning its step record (beginPs, durationPs): for PyTorch the
// ProfilerStep#N event on the host, where allocations happen (TensorFlow's group ids also come
// from host step events). The overview's PyTorch step table shows the TensorBoard plugin's
// ranges instead, extended to the device work each step launched (TorchTrace.h); those would
// give the first allocations of step N + 1 to step N while step N's kernels still run.
MemoryProfileInput memoryProfileInput(const Profile& profile, const Progress* progress = nullptr);

inline constexpr const char* kNoMemoryId = "(no allocator name)";

// The page's summary for one memory id (XProf's MemoryProfileSummary and the frontend's
// memory_profile_summary). Sizes are bytes; kNotRecorded (or NaN) where the source did not
// record the value.
struct MemorySummary {
    uint64_t allocations = 0, deallocations = 0;
    // The peak: the event at which stack + heap is largest in the window (the last such event
    // in time).
    size_t peakRecord = 0;
    int64_t peakTimePs = 0;
    int64_t peakBytesInUse = 0; // stack + heap at the peak
    int64_t stackAtPeak = kNotRecorded, heapAtPeak = kNotRecorded, freeAtPeak = kNotRecorded;
    double fragmentationAtPeak = std::numeric_limits<double>::quiet_NaN(); // 0..1
    int64_t memoryCapacity = kNotRecorded; // stack + heap + free at the peak
    // Peak heap usage over the program's lifetime (may lie outside the window): the largest
    // peak_bytes_in_use any event reports.
    int64_t peakBytesUsageLifetime = kNotRecorded;
    int64_t peakStepId = 0; // the step whose allocations the breakdown lists; kNoStep: none
    // XProf's "Steps may be incomplete" warning: the last event's step (after step-id repair)
    // is below 1. Never set where the steps came from the profile's steps (stepsFromProfile).
    bool incompleteSteps = false;
};

// One memory id's profile.
struct MemorySeries {
    std::string memoryId;
    std::string label; // memoryId, or "host/memoryId" when the input has several hosts
    uint32_t host = 0;
    bool onDevice = false;
    // Every record in time order (stable: events at one time keep input order), with its step
    // (see computeMemoryProfile) and after XProf's repair of deallocations (a free takes the op,
    // region type, data type and shape of the allocation at its address).
    std::vector<AllocationRecord> records;
    // The records' steps are the profile's steps by time (true), not their own step ids.
    bool stepsFromProfile = false;
    MemorySummary summary;
    // The allocations live at the peak, grouped (see computeMemoryProfile). Columns: Op name,
    // Allocation size (bytes), Requested size (bytes), Occurrences, Region type, Data type,
    // Shape.
    Table breakdown;
    // Per breakdown row: the earliest allocation event it stands for; kNoIndex for the rows
    // that are not allocations ("stack", "unused preallocated device memory").
    std::vector<EventIndex> breakdownEvent;
    bool hasFreeMemory = false;          // any record reports free memory above 0
    bool hasStack = false;               // any record reports a stack (bytes_reserved)
    bool hasFragmentation = false;       // any record reports fragmentation
    uint64_t unmatchedDeallocations = 0; // frees with no earlier allocation at their address
    uint64_t repeatedAllocations = 0;    // allocations at an address already allocated
};

struct MemoryProfile {
    std::vector<MemorySeries> series; // hosts in order, memory ids sorted within a host
    std::vector<std::string> strings; // what AllocationRecord's string indices name
    uint64_t invalidValues = 0;
    // The series the page and the CLI open on: of the device series the one with the largest
    // peak (peakBytesInUse), else of all series; among equal peaks the first. XProf opens on the
    // first memory id as sorted, which for PyTorch is "CPU" (a few bytes) before "GPU_0".
    size_t defaultSeries = 0;

    const std::string& str(uint32_t id) const { return strings[id]; }
    // The series with this label (or, with one host, memory id); nullptr if none.
    const MemorySeries* find(std::string_view labelOrId) const;
    // series[defaultSeries]; nullptr when there is no series.
    const MemorySeries* defaultShown() const;
};

// The memory profile of every memory id in `input` (consumed). Definitions, as XProf's
// xplane_to_memory_profile.cc:
//   - memory ids: every id with at least one event, sorted as strings (per host);
//   - steps: a series whose records carry step ids (TensorFlow's group_id) is repaired as XProf's
//     UpdateStepId does: a record without one takes the previous valid step + 1 (0 before any).
//     A series without any step id (PyTorch, CUPTI) takes, when the input has steps for its
//     host, the steps by time (Stepscope's; XProf regroups such traces at load): each record
//     takes the last step of its host that begins at or before it, if that step has not ended
//     ([begin, end)); a record outside every step keeps kNoStep. Without steps, XProf's repair
//     (every record in step 0);
//   - peak: the event with the largest stack + heap (bytes_reserved + bytes_allocated), the last
//     in time among equals; its time, stack, heap, free and fragmentation are the summary's "at
//     peak" values, and stack + heap + free there is the memory capacity;
//   - the breakdown lists the allocations live at the peak: walking the events of the peak's step
//     (the step of the last event whose stack + heap equals the peak) up to the peak's time, an
//     allocation enters a map keyed by address (replacing one at the same address) and a free
//     removes its address. The heap at the peak that those allocations do not account for
//     (heap - allocated + freed in the step, less frees of allocations made before the step) is
//     one row "unused preallocated device memory" when above 0; the stack is one row "stack"
//     when above 0. Rows are sorted by allocation size, then requested size (both descending),
//     then op, region type, data type and shape; rows equal in all six merge, counting
//     occurrences. For a peak outside every step (steps taken from the profile) the walk takes
//     every record up to the peak, whatever its step;
//   - the default series: see MemoryProfile::defaultSeries.
// Returns an empty profile if cancelled.
MemoryProfile computeMemoryProfile(MemoryProfileInput input, const Progress* progress = nullptr);

// memoryProfileInput + computeMemoryProfile.
MemoryProfile computeMemoryProfile(const Profile& profile, const Progress* progress = nullptr);

// The breakdown table's columns, without rows (what a profile without allocator events exports).
Table memoryBreakdownHeader();

// Whether the profile has allocator events on a host plane (for the Tool selector).
bool hasMemoryProfile(const Profile& profile);

// The details of one record, one "name: value" line each, as the timeline's hover shows them
// (XProf's tooltip fields): timestamp, event, requested size, allocation size, op, step,
// region type, data type, shape, memory in use. Fields the record lacks (a step included) are
// left out.
std::vector<std::pair<std::string, std::string>>
memoryRecordDetails(const MemoryProfile& profile, const MemorySeries& series, size_t record);

} // namespace stepscope
