#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"

namespace stepscope {

// Where each GPU's time goes over the profile, as Holistic Trace Analysis' temporal breakdown
// defines it (hta/analyzers/breakdown_analysis.py, get_temporal_breakdown; kernel kinds from
// hta/utils/utils.py get_kernel_type) and TraceLens' GPU timeline:
// - the events: every event on the device's streams (Track::deviceOps, never derived lines):
//   kernels, copies, sets, collectives;
// - kind of each: collective when its name contains "nccl" or "rccl" (any case; HTA tests for
//   NCCL kernel names, XProf for an "nccl" prefix); memory when it is a copy or set (a
//   memcpy_details stat, or "Memcpy"/"Memset" in its name, as HTA); computation otherwise;
// - span: from the device's first event start to its last event end;
// - busy: the union of all its events (time when streams overlap counts once); idle = span - busy;
// - computation, collectives, memory: the union of that kind's events (total), and for
//   collectives and memory also the part not overlapped by any computation (exposed).
struct GpuIdleGap {
    int64_t beginPs = 0, endPs = 0;
};

// The kind rules and interval arithmetic above, shared with the pod viewer:
// a collective kernel by name (contains "nccl" or "rccl", any case);
bool isCollectiveKernelName(std::string_view name);
// intervals sorted and merged into disjoint ones (empty ones dropped), and their summed length.
std::vector<GpuIdleGap> uniteIntervals(std::vector<GpuIdleGap> v);
int64_t intervalsLength(const std::vector<GpuIdleGap>& v);

struct GpuTimeRow {
    uint32_t plane = 0;
    std::string device; // "/device:GPU:0"
    uint64_t events = 0;
    int64_t firstPs = 0, lastPs = 0; // span
    int64_t busyPs = 0, idlePs = 0;
    int64_t computePs = 0;
    int64_t collectivesPs = 0, collectivesExposedPs = 0;
    int64_t memoryPs = 0, memoryExposedPs = 0;
    // Memory time overlapped by neither computation nor collectives: computation + exposed
    // collectives + this + idle = span (the page's stacked bar).
    int64_t memoryOnlyPs = 0;
    // The busy union's intervals, in time order (for idle gaps and utilization windows).
    std::vector<GpuIdleGap> busy;

    int64_t spanPs() const { return lastPs - firstPs; }
};

struct GpuTime {
    std::vector<GpuTimeRow> devices; // GPU planes with stream events, in plane order
};

// Returns an empty result if cancelled.
GpuTime computeGpuTime(const Profile& profile, const Progress* progress = nullptr);

// The device's idle gaps longer than `minimumPs` between its first and its last event (Nsight
// Systems' "GPU starvation" rule; it excludes the time before the first and after the last work).
std::vector<GpuIdleGap> idleGaps(const GpuTimeRow& row, int64_t minimumPs);

// Busy share of each of `chunks` equal windows of [beginPs, endPs), 0..100 (Nsight Systems'
// "GPU low utilization" rule cuts the run this way).
std::vector<double> utilizationWindows(const GpuTimeRow& row, int64_t beginPs, int64_t endPs,
                                       int chunks);

} // namespace stepscope
