#pragma once

// What the CUPTI injection library records, in a form that needs neither CUDA nor CUPTI headers:
// the injection library fills these from CUPTI activity records, the record file carries them,
// the converter turns them into an XSpace. Times are CUPTI timestamps (ns); ProcessRecord ties
// them to the wall clock.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace stepscope::capture {

// One profiled process. Written first in every record file.
struct ProcessRecord {
    uint32_t pid = 0;
    std::string hostname;
    std::string command;
    int64_t wallStartNs = 0;   // Unix time (ns) when recording began
    uint64_t cuptiStartNs = 0; // the CUPTI timestamp at that moment
};

struct ThreadRecord {
    uint32_t tid = 0;
    std::string name;
};

// Device properties, named as TensorFlow's device plane stats name them.
struct DeviceRecord {
    uint32_t id = 0;
    std::string name;
    uint32_t smCount = 0;
    uint64_t clockRateKHz = 0;
    uint64_t memoryBytes = 0;
    uint64_t memoryBandwidthBytesPerSecond = 0;
    uint32_t computeCapabilityMajor = 0;
    uint32_t computeCapabilityMinor = 0;
};

struct KernelRecord {
    uint64_t startNs = 0, endNs = 0;
    uint32_t deviceId = 0, contextId = 0, streamId = 0, correlationId = 0;
    uint32_t grid[3] = {1, 1, 1};
    uint32_t block[3] = {1, 1, 1};
    uint32_t registersPerThread = 0;
    uint32_t staticSharedBytes = 0;
    uint32_t dynamicSharedBytes = 0;
    uint64_t graphId = 0, graphNodeId = 0; // 0: not launched from a CUDA graph
    std::string name;                      // demangled
};

// Copy kinds as CUPTI numbers them (CUpti_ActivityMemcpyKind).
enum class MemcpyKind : uint8_t {
    Unknown = 0,
    HtoD = 1,
    DtoH = 2,
    HtoA = 3,
    AtoH = 4,
    AtoA = 5,
    AtoD = 6,
    DtoA = 7,
    DtoD = 8,
    HtoH = 9,
    PtoP = 10,
};

struct MemcpyRecord {
    uint64_t startNs = 0, endNs = 0;
    uint32_t deviceId = 0, contextId = 0, streamId = 0, correlationId = 0;
    uint64_t bytes = 0;
    MemcpyKind kind = MemcpyKind::Unknown;
    uint8_t srcKind = 0, dstKind = 0; // CUpti_ActivityMemoryKind
    uint32_t dstDeviceId = 0;         // peer copies: the other device
    uint64_t graphId = 0;
};

struct MemsetRecord {
    uint64_t startNs = 0, endNs = 0;
    uint32_t deviceId = 0, contextId = 0, streamId = 0, correlationId = 0;
    uint64_t bytes = 0;
    uint32_t value = 0;
};

// A CUDA runtime or driver API call on the thread that made it.
struct ApiRecord {
    enum class Domain : uint8_t { Runtime = 1, Driver = 2 };
    uint64_t startNs = 0, endNs = 0;
    uint32_t tid = 0, correlationId = 0;
    Domain domain = Domain::Runtime;
    uint32_t callbackId = 0;
    std::string name; // e.g. cudaLaunchKernel
};

// An NVTX push/pop or start/end range.
struct NvtxRangeRecord {
    uint64_t startNs = 0, endNs = 0;
    uint32_t tid = 0;
    std::string name;
};

// A device memory allocation or free (CUPTI_ACTIVITY_KIND_MEMORY2).
struct MemoryRecord {
    uint64_t timestampNs = 0;
    uint32_t deviceId = 0, streamId = 0, correlationId = 0;
    uint64_t address = 0, bytes = 0;
    bool allocation = true; // false: a free
};

// Time CUPTI itself spent (buffer flushes, instrumentation).
struct OverheadRecord {
    uint64_t startNs = 0, endNs = 0;
    std::string kind;
};

// Records CUPTI could not deliver (its buffers were full).
struct DroppedRecord {
    uint32_t contextId = 0;
    uint64_t count = 0;
};

using Record = std::variant<ProcessRecord, ThreadRecord, DeviceRecord, KernelRecord, MemcpyRecord,
                            MemsetRecord, ApiRecord, NvtxRangeRecord, MemoryRecord, OverheadRecord,
                            DroppedRecord>;

} // namespace stepscope::capture
