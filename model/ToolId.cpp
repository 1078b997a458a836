#include "model/ToolId.h"

#include <array>
#include <utility>

namespace stepscope {

namespace {

// The one table of keys, indexed by ToolId.
constexpr std::array<std::pair<ToolId, std::string_view>, 13> kToolKeys{{
    {ToolId::Summary, "summary"},
    {ToolId::Overview, "overview"},
    {ToolId::InputPipeline, "input_pipeline"},
    {ToolId::TraceViewer, "trace_viewer"},
    {ToolId::TfStats, "tf_stats"},
    {ToolId::KernelStats, "kernel_stats"},
    {ToolId::OpProfile, "op_profile"},
    {ToolId::RooflineModel, "roofline_model"},
    {ToolId::PyTorch, "pytorch"},
    {ToolId::MemoryProfile, "memory_profile"},
    {ToolId::PodViewer, "pod_viewer"},
    {ToolId::TfDataBottleneck, "tf_data_bottleneck"},
    {ToolId::RunDiff, "run_diff"},
}};

constexpr bool inEnumOrder() {
    for (size_t i = 0; i < kToolKeys.size(); ++i)
        if (kToolKeys[i].first != ToolId(i)) return false;
    return kToolKeys.back().first == ToolId::RunDiff;
}
static_assert(inEnumOrder(), "kToolKeys lists every ToolId once, in the enum's order");

} // namespace

std::string_view toolKey(ToolId tool) {
    return kToolKeys[size_t(tool)].second;
}

std::optional<ToolId> toolFromKey(std::string_view key) {
    for (const auto& [tool, k] : kToolKeys)
        if (k == key) return tool;
    return std::nullopt;
}

} // namespace stepscope
