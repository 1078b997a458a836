#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/ToolId.h"
#include "model/analysis/GpuTime.h"
#include "model/analysis/Level.h"
#include "model/analysis/Precision.h"
#include "model/analysis/StepAnalysis.h"
#include "model/analysis/TorchOverview.h"

namespace stepscope {

// One finding of the overview: what was found, its number, and where the evidence is.
struct Recommendation {
    std::string id; // stable key: "input_bound", "kernel_launch", ... (README lists them)
    Level level = Level::Info;
    std::string text; // the statement, with its number
    double value = 0; // the number the rule tested (a percentage unless the text says otherwise)
    ToolId tool = ToolId::TraceViewer; // the tool that shows the evidence
    int64_t beginPs = 0, endPs = 0;    // time range of the evidence; 0,0 for the whole profile
};

// XProf's bottleneck classification (ComputeBottleneckAnalysis, InputAnalysis,
// KernelLaunchAnalysis, AllOtherAnalysis, DeviceCollectivesAnalysis in
// xprof/convert/op_stats_to_input_pipeline_analysis.cc): shares of the summed step time. The
// output level is Stepscope's rule: XProf's OutputAnalysis serves only its TPU path, so its GPU
// page never reports output-bound; Stepscope applies XProf's output thresholds to GPU steps too.
struct Bottleneck {
    double inputPercent = 0, outputPercent = 0, computePercent = 0, idlePercent = 0;
    double kernelLaunchPercent = 0, allOtherPercent = 0, collectivesPercent = 0;
    // "host" (highly input-bound, >= 20%), "both" (moderately, >= 5%; or all-other >= 3%:
    // potentially), "device" (not input-bound), "unknown" (no step time).
    std::string input;
    // High or Moderate at XProf's thresholds; nullopt where the share is below them ("no").
    std::optional<Level> kernelLaunch, allOther, collectives, output;
    std::string inputStatement;
};

Bottleneck classifyBottleneck(const StepAnalysis& steps);

struct DeviceEnvironment {
    std::string name; // plane name
    std::string host;
    DeviceInfo info;
};

struct Overview {
    StepAnalysis steps;
    SampleSummary stepTimeMs;
    std::array<SampleSummary, kStepCategoryCount> categoryMs{}; // per category, over the steps
    Bottleneck bottleneck;
    double compute16Percent = 0; // of device compute time in the steps; NaN without device compute
    // Kernel time of the whole profile by precision (KernelFacts), indexed by Precision: the
    // page's precision breakdown, beside XProf's 16/32-bit split above.
    std::array<int64_t, kPrecisionCount> kernelPrecisionPs{};
    // Op placement, as XProf (op_stats_to_overview_page.cc): shares of op occurrences (host ops
    // vs device ops); NaN when there are no ops.
    double hostOpPercent = 0;
    double deviceOpPercent = 0;
    // Eager share where the profile says (the `is_eager` stat TensorFlow writes on its op
    // events): of the time of host (device) events carrying the stat, the share with is_eager 1.
    // NaN where no event carries it. XProf weighs op self time; Stepscope the events' durations.
    double hostEagerPercent = 0;
    double deviceEagerPercent = 0;
    GpuTime gpu;
    Table topOps;                       // top-10 device ops
    std::vector<std::string> hosts;     // as the files name them (XSpace.hostnames)
    std::vector<std::string> hostNames; // Profile::hosts() names, by StepRecord::host
    std::vector<DeviceEnvironment> devices;
    std::vector<std::string> completeness; // what makes the data incomplete, one line each
    std::vector<Recommendation> recommendations;
    // PyTorch (Kineto) profiles, steps as the profile records them (no name pattern): the PyTorch
    // TensorBoard plugin's step breakdown (TorchOverview.h: kernel, memcpy, memset,
    // communication, runtime, dataloader, CPU exec, other), one entry per host with steps. The
    // page's step graph, step table and averages show it instead of XProf's categories; the
    // bottleneck and the recommendations stay XProf's. Empty for other profiles.
    std::vector<TorchOverview> torch;
    SampleSummary torchStepTimeMs;                            // over every host's steps
    std::array<SampleSummary, kTorchRoleCount> torchRoleMs{}; // per role, over the steps
};

// XProf's moderately input-bound share of step time (op_stats_to_input_pipeline_analysis.cc).
inline constexpr double kModeratelyInputBound = 5;

// Stepscope's thresholds where XProf has none (docs/tools/overview.md names the check each serves;
// the rules are in OverviewRules.cpp).
inline constexpr double kSmallKernelUs = 20;       // launch latency: kernels shorter than this
inline constexpr double kLow16BitPercent = 10;     // GPU guide: mixed precision off
inline constexpr double kFp32DominantPercent = 50; // ... and full fp32 holds most kernel time
inline constexpr double kStepGapPercent = 10;      // gaps between steps, of the step time
inline constexpr double kExposedCopyPercent = 10;  // exposed memcpy, of busy time
inline constexpr int64_t kMinExposedCopyPs = 1'000'000'000; // ... and at least 1 ms of it
inline constexpr double kTensorCoreMissPercent = 10;        // eligible op time off Tensor Cores
inline constexpr double kReplicaImbalancePercent = 10;      // (max - min) / max of busy time
inline constexpr double kSyncApiPercent = 5;                // host time in sync APIs, of the span
inline constexpr int64_t kStarvationPs = 500'000'000'000;   // Nsight Systems' default, 500 ms
inline constexpr int kUtilizationChunks = 30;               // Nsight Systems' default chunks
inline constexpr double kLowUtilizationPercent = 50;        // Nsight Systems' default threshold
inline constexpr double kTorchDataLoaderPercent = 5;        // the PyTorch TensorBoard plugin's

// Everything the overview page shows. `stepPattern` non-empty: steps from that name pattern.
// Returns an empty result if cancelled.
Overview computeOverview(const Profile& profile, std::string_view stepPattern = {},
                         const Progress* progress = nullptr);

// The per-step table (the page's main table and the CSV export): Step, Name, Begin (ms), Step
// time (ms), one column per category (ms), Input share (%). PyTorch profiles (Overview::torch):
// Step (N of ProfilerStep#N), Begin (ms), Step time (ms), one column per plugin role (ms).
Table overviewStepTable(const Overview& overview);
// Per device: Device, Events, Span (ms), Busy (ms), Idle (ms), Busy (%), Computation (ms),
// Collectives (ms), Collectives exposed (ms), Memcpy/memset (ms), Memcpy/memset exposed (ms)
// (not overlapped by computation), Memcpy/memset only (ms) (overlapped by neither computation
// nor collectives: TraceLens' "exposed memcpy", GpuTimeRow::memoryOnlyPs).
Table gpuTimeTable(const GpuTime& gpu);
// Kernel time by precision: Precision, Kernel time (ms), Kernel time (%); one row per precision
// that ran (unknown last), empty without kernels.
Table precisionTable(const Overview& overview);
// Everything above as one JSON document.
std::string overviewJson(const Overview& overview);

} // namespace stepscope
