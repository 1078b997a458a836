#pragma once

#include <QSize>
#include <QString>
#include <optional>

#include "model/analysis/RunDiff.h"
#include "model/analysis/RunDiffTable.h"

namespace stepscope {

// `stepscope --screenshot TOOL OUT.png PATH|--demo [--size WxH]`: load a profile, show one tool
// in the main window at a fixed size, wait until the tool is complete, save the window as PNG.
struct ScreenshotRequest {
    QString tool;
    QString outPath;
    QString profilePath; // unused with demo
    bool demo = false;
    QString comparePath; // --compare CANDIDATE: compared with the profile on the run_diff page
    std::optional<DiffBy> compareTable; // --compare-table: the run_diff page's table
    QSize size{1600, 1000};
    int timeoutMs = 120000; // per wait: the load, then the tool
};

// Needs a running QApplication (any platform plugin, offscreen included). Returns an empty
// string on success, else what went wrong (an unknown tool lists the valid ids).
QString takeScreenshot(const ScreenshotRequest& request);

} // namespace stepscope
