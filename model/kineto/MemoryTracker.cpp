#include "model/kineto/MemoryTracker.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "model/kineto/HostSliceTracker.h"

namespace stepscope::kineto {

// [memory] instants as the memory profile reads allocator events (see MemoryProfile.h): one
// allocator per device ("GPU_<id>" for CUDA/HIP, "CPU"), bytes_allocated = "Total Allocated"
// (or, in 2021 traces that lack it, the running sum of "Bytes" in time order),
// bytes_available = "Total Reserved" - "Total Allocated", allocation_bytes = |"Bytes"|. An
// allocator whose "Total Reserved" is never above 0 records no reserved memory (PyTorch writes 0
// for its CPU allocator, which caches nothing): its events get no bytes_available, since
// 0 - allocated would read as a negative (impossible) free size.
void MemoryTracker::finish(ProfileBuilder& b, const HostSliceTracker& hosts, uint32_t tfOpKey) {
    std::stable_sort(records_.begin(), records_.end(), [](const Record& x, const Record& y) {
        return x.start != y.start ? x.start < y.start : x.order < y.order;
    });
    std::set<std::pair<int64_t, int64_t>> recordsReserved; // (device type, id)
    for (const Record& m : records_)
        if (m.hasTotalReserved && m.totalReserved > 0)
            recordsReserved.insert({m.deviceType, m.deviceId});
    const uint32_t allocatorKey = b.statKey(b.intern("allocator_name"));
    const uint32_t allocatedKey = b.statKey(b.intern("bytes_allocated"));
    const uint32_t availableKey = b.statKey(b.intern("bytes_available"));
    const uint32_t sizeKey = b.statKey(b.intern("allocation_bytes"));
    const uint32_t addrKey = b.statKey(b.intern("addr"));
    std::map<std::pair<int64_t, int64_t>, int64_t> running;
    std::unordered_map<uint64_t, uint32_t> meta;
    for (const Record& m : records_) {
        const uint32_t plane = hosts.plane(m.thread);
        const bool free = m.bytes < 0;
        const StringId name = b.intern(free ? "MemoryDeallocation" : "MemoryAllocation");
        const uint64_t mk = uint64_t(plane) << 32 | name;
        auto it = meta.find(mk);
        if (it == meta.end())
            it = meta.emplace(mk,
                              b.addMetadata(plane, -1 - int64_t(free), b.strings().get(name), {}))
                     .first;
        b.addEvent(hosts.track(m.thread), m.start, 0, it->second);
        std::string allocator;
        if (m.deviceType == 0)
            allocator = "CPU";
        else if (m.deviceType == 1)
            allocator = "GPU_" + std::to_string(m.deviceId);
        else
            allocator =
                "device_type_" + std::to_string(m.deviceType) + "_" + std::to_string(m.deviceId);
        b.addEventStat(allocatorKey, StatType::Str, b.intern(allocator));
        int64_t& sum = running[{m.deviceType, m.deviceId}];
        sum += m.bytes;
        const int64_t allocated = m.hasTotalAllocated ? m.totalAllocated : sum;
        b.addEventStat(allocatedKey, StatType::Int64, uint64_t(allocated));
        if (m.hasTotalAllocated && m.hasTotalReserved &&
            recordsReserved.count({m.deviceType, m.deviceId}))
            b.addEventStat(availableKey, StatType::Int64,
                           uint64_t(m.totalReserved - m.totalAllocated));
        b.addEventStat(sizeKey, StatType::Int64, uint64_t(m.bytes < 0 ? -m.bytes : m.bytes));
        if (m.hasAddr) b.addEventStat(addrKey, StatType::Uint64, m.addr);
        if (m.op) b.addEventStat(tfOpKey, StatType::Str, m.op);
    }
    Column<Record>().swap(records_);
}

} // namespace stepscope::kineto
