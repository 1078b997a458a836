#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Progress.h"
#include "model/Table.h"
#include "model/analysis/Overview.h"
#include "model/analysis/StepAnalysis.h"

namespace stepscope {

// The input-pipeline analyzer, as XProf's generic (GPU/CPU) one
// (xprof/convert/op_stats_to_input_pipeline_analysis.cc):
// - device side: the steps of analyzeSteps(); per step, input = waiting for input + host to
//   device, and all other time; the step time summary and the input share per step;
// - the verdict: classifyBottleneck() (XProf's InputAnalysis: >= 20% highly, >= 5% moderately
//   input-bound; all-others >= 3% potentially);
// - host side: the input ops among the host op stats (computeTfOpStats): ops of type "Dataset"
//   (tf.data iterators), MemcpyHToD or InfeedEnqueue, or input-pipeline stages of category
//   enqueue / read / preprocessing / unknown (XProf's IsInputOp). Category (CategorizeInputOp):
//   enqueue for copies to the device; a file read for names ending in ::TFRecord, ::TextLine,
//   ::FixedLengthRecord, ::SSTable, ::RecordIO or ::ArrayRecord, "advanced" when it also names
//   ::MemoryReader, ::MemoryWriter, ::Interleave, ::Prefetch or ::ParallelMap, else "demanded";
//   everything else preprocessing.
// - host breakdown (GenerateHostResult): enqueue = the enqueue ops' self time; the rest of the
//   input time is estimated from the share r of host-to-device time in the average step
//   (min(1, avg host-to-device / avg step time)): non-enqueue = enqueue * (1 - r) / r, or the
//   summed file-read and preprocessing self time when r is 0; file reads and preprocessing are
//   that non-enqueue time split in proportion to their self times; "other" is what is left.
//   Departure: also the self-time sum when there is no enqueue op. XProf's GPU steps have r = 0
//   (copies read as compute, host events not joined); Stepscope's have r > 0 wherever a step has
//   an H2D copy, while PyTorch and TF GPU profiles rarely have enqueue ops, and the scaling would
//   then zero the whole breakdown.
enum class InputOpCategory : uint8_t {
    Enqueue,
    DemandedFileRead,
    AdvancedFileRead,
    Preprocessing,
    Unknown
};
std::string_view inputOpCategoryName(InputOpCategory c);
InputOpCategory categorizeInputOp(std::string_view name, std::string_view type);
// XProf's IsInputOp on an op type (above).
bool isInputOpType(std::string_view type);

struct InputOpRow {
    std::string name;
    InputOpCategory category = InputOpCategory::Unknown;
    uint64_t count = 0;
    int64_t totalPs = 0, selfPs = 0;
};

struct InputPipeline {
    StepAnalysis steps;
    std::vector<std::string> hosts; // host names, by StepRecord::host
    Bottleneck bottleneck;
    SampleSummary stepTimeMs;
    SampleSummary inputPercent;  // input share of each step
    std::vector<InputOpRow> ops; // by self time, largest first
    int64_t inputOpSelfPs = 0;   // their summed self time (the % base of the op table)
    // Host breakdown, µs; all 0 when no input op was found.
    double enqueueUs = 0, demandedFileReadUs = 0, advancedFileReadUs = 0, preprocessingUs = 0,
           otherUs = 0;
    bool tfDataUsed = false; // XProf's TfDataInUse: some file read or preprocessing time
};

// Returns an empty result if cancelled.
InputPipeline computeInputPipeline(const Profile& profile, std::string_view stepPattern = {},
                                   const Progress* progress = nullptr);

// The input op table (the page's main table and the CSV): Input op, Count, Total time (ms),
// Total time (%), Self time (ms), Self time (%), Category.
Table inputOpTable(const InputPipeline& ip);
// Per step: Step, (Host, with several hosts), Step time (ms), Input (ms), Waiting for input (ms),
// Host to device (ms), Other (ms), Input (%).
Table inputStepTable(const InputPipeline& ip);
// Host breakdown: Category, Time (µs).
Table inputBreakdownTable(const InputPipeline& ip);
std::string inputPipelineJson(const InputPipeline& ip);

} // namespace stepscope
