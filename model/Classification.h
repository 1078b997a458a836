#pragma once

#include <cstdint>
#include <string_view>

namespace stepscope {

// What a plane (an XPlane) stands for, from its name.
//   "/host:CPU"                     Host
//   "/device:GPU:N"                 Gpu (N is the device ordinal)
//   "/device:TPU:N"                 Tpu
//   "/device:CUSTOM:..."            Custom (e.g. "Megascale Trace"; no GPU meaning)
//   anything else ("/host:metadata", "Task Environment") Other
enum class PlaneKind : uint8_t { Host, Gpu, Tpu, Custom, Other };

// What a track (an XLine) shows.
enum class TrackKind : uint8_t {
    HostThread,   // a thread on a host plane
    GpuStream,    // a CUDA/HIP stream ("Stream #N(...)")
    Steps,        // derived: one event per training step
    XlaModules,   // derived
    XlaOps,       // derived
    FrameworkOps, // derived: "TensorFlow Ops" / "Framework Ops"
    NameScope,    // derived: "TensorFlow Name Scope" / "Framework Name Scope"
    SourceCode,   // derived: "Source code"
    LaunchStats,  // derived: "Launch Stats"
    Other,        // any other line on a device plane
};

// Bit flags for the work a GPU stream carries, from the parenthesised list in its name:
// "Stream #134(Compute)", "Stream #136(MemcpyD2H)", "Stream #16(Kernel)",
// "Stream #7(Compute,MemcpyD2D)". A bare "Stream #2" has none.
enum StreamKindFlag : uint16_t {
    StreamCompute = 1 << 0,
    StreamMemcpyH2D = 1 << 1,
    StreamMemcpyD2H = 1 << 2,
    StreamMemcpyD2D = 1 << 3,
    StreamMemcpyP2P = 1 << 4,
    StreamMemset = 1 << 5,
    StreamKernel = 1 << 6, // ROCm names kernel streams "(Kernel)"
    StreamNccl = 1 << 7,
    StreamOther = 1 << 8,
};

struct PlaneClass {
    PlaneKind kind = PlaneKind::Other;
    int deviceOrdinal = -1;
};
PlaneClass classifyPlane(std::string_view name);

struct TrackClass {
    TrackKind kind = TrackKind::Other;
    uint16_t streamFlags = 0;
    int64_t streamId = -1; // N of "Stream #N"
};
TrackClass classifyTrack(PlaneKind plane, std::string_view name);

// True for lines the profiler derives from others (steps, framework/XLA ops, name scopes, ...).
// Analyses that count device work skip them so nothing is counted twice.
bool isDerived(TrackKind kind);

// True for a track that carries device work as recorded: a non-derived line of a GPU or TPU
// plane (its streams). Kernel stats, op stats and launch flows count exactly these events.
bool isDeviceStream(PlaneKind plane, TrackKind track);

std::string_view planeKindName(PlaneKind kind);
std::string_view trackKindName(TrackKind kind);
// "Compute", "MemcpyH2D", "Compute+MemcpyD2D", "" for none.
std::string streamFlagsName(uint16_t flags);

} // namespace stepscope
