#pragma once

#include <optional>
#include <string_view>

namespace stepscope {

// Every tool of the Tool selector, in the order it lists them.
enum class ToolId {
    Summary,
    Overview,
    InputPipeline,
    TraceViewer,
    TfStats,
    KernelStats,
    OpProfile,
    RooflineModel,
    PyTorch,
    MemoryProfile,
    PodViewer,
    TfDataBottleneck,
    RunDiff,
};

// The tool's stable key: what the command line (--screenshot ID, export TOOL), the JSON files
// ("tool") and the findings' Evidence column name it: trace_viewer, kernel_stats, ...
std::string_view toolKey(ToolId tool);

// The tool with this key; nullopt for any other text.
std::optional<ToolId> toolFromKey(std::string_view key);

} // namespace stepscope
