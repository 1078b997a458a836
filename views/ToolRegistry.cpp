#include "views/ToolRegistry.h"

#include "views/summary/SummaryView.h"

namespace stepscope {

std::vector<ToolInfo> toolRegistry() {
    std::vector<ToolInfo> tools;
    tools.push_back({"summary", "Profile summary", [](QWidget* p) { return new SummaryView(p); },
                     [](const Profile&) { return true; }});
    return tools;
}

const ToolInfo* findTool(const std::vector<ToolInfo>& tools, const QString& id) {
    for (const ToolInfo& t : tools)
        if (t.id == id) return &t;
    return nullptr;
}

} // namespace stepscope
