#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace stepscope {

// Launch geometry of one GPU kernel, parsed from the `kernel_details` stat. Three spellings occur
// in real profiles (see README, "Kernel details"):
//   TF 2020:  "regs:16 shm:0 grid:160,1,1 block:1024,1,1"
//   CUDA now: "regs:32 static_shared:0 dynamic_shared:4096 grid:.. block:.. occ_pct:50"
//   ROCm:     " grid:8,32,1 block:256,1,1 private_mem:0 group_mem:12800 occ_pct:0"
// Tokens may be separated by any whitespace (newer profilers use newlines). As in XProf's
// ParseKernelLaunchParams (xprof/utils/kernel_stats_utils.cc), a missing or malformed block or
// grid reads as 1,1,1. XProf reads only regs, static_shared, dynamic_shared, grid, block and
// occ_pct; Stepscope also counts `shm` (TF 2020) and `group_mem` (ROCm) as static shared memory,
// which XProf shows as 0 for those profiles.
//
// KernelDetails and MemcpyDetails are elements of the profile's columns, which the cache writes as
// bytes: their padding is named fields set to zero, so every byte is defined (see Track in
// Profile.h), and -Wpadded as an error keeps it so.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wpadded"
struct KernelDetails {
    uint32_t registersPerThread = 0;
    bool hasRegisters = false;    // `regs` present (ROCm does not record it)
    bool hasSharedMemory = false; // some shared memory field present
    uint8_t reserved0[2] = {};
    uint32_t staticSharedBytes = 0;
    uint32_t dynamicSharedBytes = 0;
    uint32_t privateBytes = 0; // ROCm private (scratch) memory per work-item
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint8_t reserved1[4] = {};
    double occupancyPct = -1; // theoretical occupancy, -1 when the profile does not give it
    bool valid = false;       // at least grid and block were present (an empty kernel_details,
                              // as the Kineto importer writes for ROCm kernels, has neither)
    uint8_t reserved2[7] = {};

    uint32_t sharedBytes() const { return staticSharedBytes + dynamicSharedBytes; }
    uint64_t threadsPerBlock() const { return uint64_t(block[0]) * block[1] * block[2]; }
    static KernelDetails parse(std::string_view text);
};

// Direction of a memory copy, from the event name or the stream it ran on.
enum class CopyKind : uint8_t {
    Unknown,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    PeerToPeer,
    Memset
};

// The `memcpy_details` stat: "size:112 dest:4 async:0", or "kind:Unknown size:0 dest:512 async:1".
struct MemcpyDetails {
    uint64_t bytes = 0;
    int64_t destination = -1;
    bool async = false;
    CopyKind kind = CopyKind::Unknown; // from a `kind:` field where one is present
    bool valid = false;
    uint8_t reserved[5] = {};

    static MemcpyDetails parse(std::string_view text);
};
#pragma GCC diagnostic pop

// The copy direction an event or track name implies ("MemcpyH2D", "cudaMemcpyDtoHAsync",
// "Memset", ...), Unknown where it implies none.
CopyKind copyKindFromName(std::string_view name);
std::string_view copyKindName(CopyKind kind);

// Who made a GPU, from its `device_vendor` as profiles spell it ("Nvidia" from XLA, "NVIDIA" from
// the Kineto importer, "AMD", "Advanced Micro Devices, Inc."): Unknown where it is empty (TF 2.x
// era profiles, Kineto traces without deviceProperties) or names neither.
enum class GpuVendor : uint8_t { Unknown, Nvidia, Amd };
GpuVendor gpuVendorOf(std::string_view deviceVendor);

} // namespace stepscope
