#include "views/ToolRegistry.h"

#include "model/analysis/KernelStats.h"
#include "model/analysis/MemoryProfile.h"
#include "model/analysis/Roofline.h"
#include "model/analysis/TfDataBottleneck.h"
#include "model/analysis/TfOpStats.h"
#include "model/analysis/TorchTrace.h"
#include "views/input_pipeline/InputPipelineView.h"
#include "views/kernel_stats/KernelStatsView.h"
#include "views/memory_profile/MemoryProfileView.h"
#include "views/op_profile/OpProfileView.h"
#include "views/overview/OverviewView.h"
#include "views/pod_viewer/PodViewerView.h"
#include "views/pytorch/PyTorchView.h"
#include "views/roofline/RooflineView.h"
#include "views/run_diff/RunDiffView.h"
#include "views/summary/SummaryView.h"
#include "views/tf_data/TfDataView.h"
#include "views/tf_stats/TfStatsView.h"
#include "views/trace/TraceView.h"

namespace stepscope {

std::vector<ToolInfo> toolRegistry() {
    std::vector<ToolInfo> tools;
    tools.push_back({ToolId::Summary, "Profile summary",
                     [](QWidget* p) { return new SummaryView(p); },
                     [](const Profile&) { return true; }});
    tools.push_back({ToolId::Overview, "Overview", [](QWidget* p) { return new OverviewView(p); },
                     [](const Profile& profile) { return profile.eventCount() > 0; }});
    tools.push_back({ToolId::InputPipeline, "Input pipeline analyzer",
                     [](QWidget* p) { return new InputPipelineView(p); },
                     [](const Profile& profile) { return profile.eventCount() > 0; }});
    tools.push_back({ToolId::TraceViewer, "Trace viewer",
                     [](QWidget* p) { return new TraceView(p); },
                     [](const Profile& profile) { return profile.eventCount() > 0; }});
    tools.push_back({ToolId::TfStats, "TensorFlow op stats",
                     [](QWidget* p) { return new TfStatsView(p); },
                     [](const Profile& profile) { return hasTfOpStats(profile); }});
    tools.push_back({ToolId::KernelStats, "GPU kernel stats",
                     [](QWidget* p) { return new KernelStatsView(p); },
                     [](const Profile& profile) { return hasKernelStats(profile); }});
    // How close each GPU op runs to the device's roofs (HLO ops, PyTorch operators).
    tools.push_back({ToolId::OpProfile, "Op profile",
                     [](QWidget* p) { return new OpProfileView(p); },
                     [](const Profile& profile) { return hasRoofline(profile); }});
    tools.push_back({ToolId::RooflineModel, "Roofline model",
                     [](QWidget* p) { return new RooflineView(p); },
                     [](const Profile& profile) { return hasRoofline(profile); }});
    // PyTorch (Kineto) traces: the PyTorch profiler TensorBoard plugin's numbers.
    tools.push_back({ToolId::PyTorch, "PyTorch (TensorBoard plugin)",
                     [](QWidget* p) { return new PyTorchView(p); },
                     [](const Profile& profile) { return isTorchProfile(profile); }});
    tools.push_back({ToolId::MemoryProfile, "Memory profile",
                     [](QWidget* p) { return new MemoryProfileView(p); },
                     [](const Profile& profile) { return hasMemoryProfile(profile); }});
    // Every worker side by side: a run of several hosts (or ranks) loaded with "All hosts".
    tools.push_back({ToolId::PodViewer, "Pod viewer",
                     [](QWidget* p) { return new PodViewerView(p); },
                     [](const Profile& profile) { return profile.hosts().size() > 1; }});
    tools.push_back({ToolId::TfDataBottleneck, "tf.data bottleneck analysis",
                     [](QWidget* p) { return new TfDataView(p); },
                     [](const Profile& profile) { return hasTfDataEvents(profile); }});
    // The profile on screen as the baseline against a candidate run the page loads.
    tools.push_back({ToolId::RunDiff, "Compare runs", [](QWidget* p) { return new RunDiffView(p); },
                     [](const Profile& profile) { return profile.eventCount() > 0; }});
    return tools;
}

const ToolInfo* findTool(const std::vector<ToolInfo>& tools, const QString& key) {
    const std::optional<ToolId> id = toolFromKey(key.toStdString());
    for (const ToolInfo& t : tools)
        if (id == t.id) return &t;
    return nullptr;
}

} // namespace stepscope
