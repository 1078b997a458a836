#include "app/cli/Exporters.h"

#include "app/cli/MemoryProfileExport.h"
#include "model/Json.h"
#include "model/ToolId.h"
#include "model/analysis/InputPipeline.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/Overview.h"
#include "model/analysis/PodViewer.h"
#include "model/analysis/RooflineTable.h"
#include "model/analysis/TfDataBottleneck.h"
#include "model/analysis/TfOpStats.h"
#include "model/analysis/TorchOverview.h"
#include "model/analysis/TorchStats.h"

namespace stepscope::cli {

std::string tableExportJson(std::string_view tool, const Table& table) {
    JsonWriter json;
    json.beginObject().field("tool", tool);
    json.key("rows").table(table);
    json.endObject();
    return json.take();
}

const std::vector<Exporter>& exporters() {
    static const std::vector<Exporter> all = [] {
        std::vector<Exporter> e;
        auto tfStats = [](const Profile& p, const ExportOptions& o) {
            return tfOpStatsTable(computeTfOpStats(p), o.contains("include-idle"));
        };
        e.push_back(
            {std::string(toolKey(ToolId::TfStats)),
             "TensorFlow op stats: the op table",
             {{"include-idle", false, "add the IDLE rows (the page's \"Include idle time\")"}},
             tfStats,
             [tfStats](const Profile& p, const ExportOptions& o) {
                 return tableExportJson(toolKey(ToolId::TfStats), tfStats(p, o));
             }});
        auto kernelStats = [](const Profile& p, const ExportOptions&) {
            return computeKernelStats(p).table;
        };
        e.push_back({std::string(toolKey(ToolId::KernelStats)),
                     "GPU kernel stats: the kernel table",
                     {},
                     kernelStats,
                     [kernelStats](const Profile& p, const ExportOptions& o) {
                         return tableExportJson(toolKey(ToolId::KernelStats), kernelStats(p, o));
                     }});
        e.push_back({std::string(toolKey(ToolId::MemoryProfile)),
                     "Memory profile of one allocator: the allocations live at the peak (CSV); "
                     "summary, timeline and breakdown (JSON)",
                     {{"memory-id", true,
                       "the memory id (allocator) to export; default the page's (the device "
                       "allocator with the highest peak)"}},
                     memoryProfileCsv,
                     memoryProfileJson});
        e.push_back(
            {std::string(toolKey(ToolId::Overview)),
             "Overview: the per-step breakdown (CSV); summary, steps, GPU time, top ops, "
             "environment, recommendations (JSON)",
             {{"step-pattern", true, "find steps as the events whose name contains this text"}},
             [](const Profile& p, const ExportOptions& o) {
                 const auto it = o.find("step-pattern");
                 return overviewStepTable(computeOverview(p, it == o.end() ? "" : it->second));
             },
             [](const Profile& p, const ExportOptions& o) {
                 const auto it = o.find("step-pattern");
                 return overviewJson(computeOverview(p, it == o.end() ? "" : it->second));
             }});
        e.push_back(
            {std::string(toolKey(ToolId::InputPipeline)),
             "Input pipeline analyzer: the input op table (CSV); summary, per-step input "
             "time, host breakdown, input ops (JSON)",
             {{"step-pattern", true, "find steps as the events whose name contains this text"}},
             [](const Profile& p, const ExportOptions& o) {
                 const auto it = o.find("step-pattern");
                 return inputOpTable(computeInputPipeline(p, it == o.end() ? "" : it->second));
             },
             [](const Profile& p, const ExportOptions& o) {
                 const auto it = o.find("step-pattern");
                 return inputPipelineJson(computeInputPipeline(p, it == o.end() ? "" : it->second));
             }});
        e.push_back({std::string(toolKey(ToolId::PodViewer)),
                     "Pod viewer: every step per worker (CSV); workers, stragglers, steps and "
                     "collective kernels (JSON)",
                     {},
                     [](const Profile& p, const ExportOptions&) {
                         return podStepTable(computePodViewer(p));
                     },
                     [](const Profile& p, const ExportOptions&) {
                         return podViewerJson(computePodViewer(p));
                     }});
        e.push_back({std::string(toolKey(ToolId::TfDataBottleneck)),
                     "tf.data bottleneck analysis: the input pipelines (CSV); summary, "
                     "bottlenecks with advice and slowest executions, pipelines (JSON)",
                     {},
                     [](const Profile& p, const ExportOptions&) {
                         return tfDataPipelineTable(computeTfDataBottleneck(p));
                     },
                     [](const Profile& p, const ExportOptions&) {
                         return tfDataBottleneckJson(computeTfDataBottleneck(p));
                     }});
        e.push_back({"roofline",
                     "Roofline and op profile: every device op with time, FLOPs, bytes, "
                     "FLOP/s and Bytes/s against the GPU's roofs, bound by (CSV); with the "
                     "devices' peaks and their sources (JSON)",
                     {{"per-step", false, "after the whole-profile rows, each step's rows"}},
                     [](const Profile& p, const ExportOptions& o) {
                         const Roofline r = computeRoofline(p);
                         return o.contains("per-step") ? rooflineTableAllSteps(r)
                                                       : rooflineTable(r, -1).table;
                     },
                     [](const Profile& p, const ExportOptions&) {
                         return rooflineJson(computeRoofline(p));
                     }});
        // PyTorch (Kineto) traces: the PyTorch profiler TensorBoard plugin's tables.
        auto torchOps = [](const Profile& p, const ExportOptions& o) {
            const TorchStats s = computeTorchStats(p);
            const bool byInput = o.contains("group-by-input");
            return torchOpTable(byInput ? s.opsByInput : s.ops, byInput);
        };
        e.push_back({"pytorch_ops",
                     "PyTorch operators (TensorBoard plugin definitions): calls, host and device "
                     "self/total time, Tensor Core shares",
                     {{"group-by-input", false, "one row per operator and input shape"}},
                     torchOps,
                     [torchOps](const Profile& p, const ExportOptions& o) {
                         return tableExportJson("pytorch_ops", torchOps(p, o));
                     }});
        auto torchKernels = [](const Profile& p, const ExportOptions& o) {
            const TorchStats s = computeTorchStats(p);
            return o.contains("by-name") ? torchKernelTable(s) : torchKernelOpTable(s);
        };
        e.push_back({"pytorch_kernels",
                     "PyTorch kernels (TensorBoard plugin definitions): by kernel, operator and "
                     "launch configuration",
                     {{"by-name", false, "one row per kernel name (every kernel of the trace)"}},
                     torchKernels,
                     [torchKernels](const Profile& p, const ExportOptions& o) {
                         return tableExportJson("pytorch_kernels", torchKernels(p, o));
                     }});
        e.push_back({"pytorch_overview",
                     "PyTorch step breakdown (TensorBoard plugin definitions) (CSV); with GPU "
                     "utilization, SM efficiency, occupancy and Tensor Core shares (JSON)",
                     {},
                     [](const Profile& p, const ExportOptions&) {
                         return torchStepTable(computeTorchOverviews(p), p);
                     },
                     [](const Profile& p, const ExportOptions&) {
                         return torchOverviewJson(computeTorchOverviews(p), p,
                                                  computeTorchStats(p).tensorCoreKernelRatio);
                     }});
        return e;
    }();
    return all;
}

} // namespace stepscope::cli
