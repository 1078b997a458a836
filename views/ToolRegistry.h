#pragma once

#include <QString>
#include <functional>
#include <vector>

#include "model/Profile.h"
#include "model/ToolId.h"
#include "views/ToolView.h"

namespace stepscope {

struct ToolInfo {
    ToolId id;
    QString title; // as the Tool selector shows it
    std::function<ToolView*(QWidget* parent)> create;
    // Whether the tool has anything to show for this profile; the Tool selector lists only those.
    std::function<bool(const Profile&)> available;
};

// Every tool, in the order the Tool selector lists them.
std::vector<ToolInfo> toolRegistry();
// The tool whose key (toolKey: --screenshot ID, the Tool selector's item data) is `key`; null
// where none is.
const ToolInfo* findTool(const std::vector<ToolInfo>& tools, const QString& key);

} // namespace stepscope
