#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/analysis/HloCatalog.h"

namespace stepscope {

// Where each training step's time goes, as XProf's generic (GPU/CPU) step analysis defines it:
//   xprof/convert/xplane_to_step_events.cc   which events mark a step and how each is classified
//   xprof/utils/event_span.cc                the event types, their priorities, the sweep that
//                                            makes overlapping events non-overlapping, StepTime()
//   xprof/convert/step_events_to_steps_db.cc per-step type totals, unknown time, well-formed steps
//   xprof/convert/op_stats_to_input_pipeline_analysis.cc  the generic categories below
// Departures are named where they occur (see the README's "Overview" section).

// XProf's EventType (event_span.h), with its values: where events overlap, the larger value wins.
// Only the types XProf's GPU/CPU classifiers produce are listed.
enum class StepEventType : uint8_t {
    UnknownTime = 0,
    HostCompute = 10,
    HostToHost = 70,
    HostToDevice = 80,
    HostPrepare = 90,
    DeviceCollectives = 100,
    HostWaitInput = 110,
    DeviceToDevice = 120,
    DeviceToHost = 130,
    DeviceCompute32 = 140,
    DeviceCompute16 = 150,
};

// The categories the overview and input-pipeline pages show (XProf's GenericEventType, with
// device compute split by precision). Every picosecond of a step lands in exactly one.
enum class StepCategory : uint8_t {
    Compilation,       // HOST_COMPILE: XProf's classifiers never produce it (always 0, as in XProf)
    Input,             // HOST_WAIT_INPUT + HOST_TO_DEVICE
    Output,            // DEVICE_TO_HOST
    KernelLaunch,      // HOST_PREPARE
    HostCompute,       // HOST_COMPUTE
    DeviceCollectives, // DEVICE_COLLECTIVES
    DeviceToDevice,    // DEVICE_TO_DEVICE
    DeviceCompute16,   // DEVICE_COMPUTE_16
    DeviceCompute32,   // DEVICE_COMPUTE_32
    AllOthers,         // UNKNOWN_TIME, and HOST_TO_HOST (XProf drops it from every category)
};
inline constexpr size_t kStepCategoryCount = 10;
std::string_view stepCategoryName(StepCategory category);

// How the steps were found.
enum class StepSource : uint8_t {
    None,          // no steps: the page says so and offers a name pattern
    GroupedSteps,  // XProf's: the device "Steps" line and group_id stats
    HostMarkers,   // step-marker TraceMe events (a step_num stat, or "train"/"test"/"TraceContext"
                   // with a group_id)
    ProfilerSteps, // PyTorch's "ProfilerStep#N" annotations
    NamePattern,   // events whose name contains the user's pattern
    XlaModules,    // executions of the program's main XLA module (Stepscope's, see analyzeSteps)
    StepLines,     // a device "Steps" line numbered by step_num, without group ids (Stepscope's
                   // CUPTI capture: NVTX "step N" ranges)
};
std::string_view stepSourceName(StepSource source);

struct StepRecord {
    int64_t number = 0;
    uint32_t host = 0; // Profile::hosts() index: each host's steps are its own (group ids and step
                       // numbers restart on every host, and hosts' clocks need not agree)
    std::string name;
    int64_t beginPs = 0;
    int64_t durationPs = 0;
    std::array<int64_t, kStepCategoryCount> categoryPs{}; // sums to durationPs
    int64_t hostWaitInputPs = 0;                          // the two parts of Input
    int64_t hostToDevicePs = 0;

    int64_t ps(StepCategory c) const { return categoryPs[size_t(c)]; }
    int64_t deviceComputePs() const {
        return ps(StepCategory::DeviceCompute16) + ps(StepCategory::DeviceCompute32);
    }
};

struct StepAnalysis {
    StepSource source = StepSource::None;
    std::string pattern;           // NamePattern: the pattern used
    bool hasDevice = false;        // the profile has GPU work (steps must have device compute)
    std::vector<StepRecord> steps; // by step number, then host
    size_t notWellFormed = 0;      // steps found but dropped: no (device) compute, as XProf
};

// Finds the steps and breaks each down. Sources, first that yields steps wins:
// 1. GroupedSteps (XProf): per GPU plane, step markers are the events of its "Steps" line with a
//    group_id; step events are the events of its streams with both a correlation id and a group_id
//    (ConvertDeviceTraceXPlaneToStepEvents); a group id counts when the plane has both. Host events
//    with a group id among those steps join in (step markers by name or step_name stat; every
//    other event that is real CPU compute is classified), as TensorFlow 2.x's
//    xplane_to_op_stats.cc did. Departure: XProf since its move to openxla/xprof adds host events
//    only to host-only profiles, so on GPUs its input, launch and host compute read zero.
//    Step time: XProf's StepTime(): the longest host marker if it includes the longest device
//    marker, else the device marker.
// 2. HostMarkers, 3. ProfilerSteps, 4. NamePattern (Stepscope's, for profiles without group ids,
//    which XProf groups at load with its event-forest code that Stepscope does not reproduce): each
//    top-level marker event on a host thread (NamePattern: on any non-derived line) is one step
//    spanning that event; its step number is its `step_num` stat, the N of "ProfilerStep#N", or
//    its position. Device stream events that overlap the step, and host events wholly inside it
//    (other than the marker), are classified as XProf classifies grouped events.
// Then, per step: XProf's sweep turns overlapping events into non-overlapping spans (larger type
// wins), each clipped to the step; time no event covers is UnknownTime. When the profile has GPU
// work, a step without device compute is dropped (XProf's well-formed test).
// 5. StepLines (Stepscope's): events of a GPU plane's "Steps" line that carry a `step_num` stat and
//    no group id are the steps (one per number and host, the longest where several GPUs have it),
//    with their events collected as for sources 2-4. Stepscope's CUPTI converter writes such a
//    line from NVTX ranges named like steps ("step 3"); XProf, which groups by group id, finds no
//    step in them.
// 6. XlaModules (Stepscope's; XProf has no GPU counterpart): when none of the above finds a step,
//    each execution of the XLA module with the most device time is a step (JAX without step
//    annotations). The rule and how it departs from XProf are at moduleSteps() in the .cpp.
// Steps are keyed by host: every host numbers its group ids and steps on its own.
// `namePattern` non-empty: use source 4 only (the user asked for it). `hlo`: the profile's HLO
// catalog where the caller has one (for the precision of XLA kernels); made here when null.
StepAnalysis analyzeSteps(const Profile& profile, std::string_view namePattern = {},
                          const Progress* progress = nullptr, const HloCatalog* hlo = nullptr);

// XProf's sample statistics (tsl::Stat via GetStepSummaryForSampleStats,
// op_stats_to_input_pipeline_analysis.cc): average, sample standard deviation (n - 1; 0 when all
// samples are equal), minimum, maximum; all 0 for no samples.
struct SampleSummary {
    double average = 0, stddev = 0, minimum = 0, maximum = 0;
    size_t count = 0;
};
SampleSummary summarize(const std::vector<double>& samples);

} // namespace stepscope
