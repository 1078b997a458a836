#pragma once

#include <QString>
#include <functional>
#include <vector>

#include "model/Profile.h"

class QWidget;

namespace stepscope {

class ToolView;

struct ToolInfo {
    QString id;    // stable name used on the command line: --screenshot ID, export ID
    QString title; // as the Tool selector shows it
    std::function<ToolView*(QWidget* parent)> create;
    // Whether the tool has anything to show for this profile; the Tool selector lists only those.
    std::function<bool(const Profile&)> available;
};

// Every tool, in the order the Tool selector lists them.
std::vector<ToolInfo> toolRegistry();
const ToolInfo* findTool(const std::vector<ToolInfo>& tools, const QString& id);

} // namespace stepscope
