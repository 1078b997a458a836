#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "ui/ScreenshotMode.h"

namespace stepscope {

// What `stepscope` was asked to do.
struct GuiCommand {
    QString path;        // profile to open; empty for none
    QString comparePath; // --compare CANDIDATE: compare the profile with it; empty for none
    bool demo = false;
    bool noCache = false; // --no-cache: neither read nor write the profile cache
    std::optional<ScreenshotRequest> screenshot;
    bool help = false;
    QString error; // set when the arguments are wrong
    QString usage; // the help text
};

// Parses the arguments (args[0] is the program) of:
//   stepscope [PATH | --demo] [--compare CANDIDATE] [--no-cache]
//   stepscope --screenshot TOOL OUT.png (PATH | --demo) [--size WxH]
//       [--compare CANDIDATE [--compare-table steps|ops|kernels|host_ops]]
GuiCommand parseGuiCommand(const QStringList& args);

} // namespace stepscope
