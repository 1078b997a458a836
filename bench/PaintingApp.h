#pragma once

#include <QGuiApplication>

#include <memory>

namespace stepscope::bench {

// The Qt application the painting benchmarks of stepscope-bench need:
// `bench timeline` paints into QImages (a QGuiApplication), `bench memory` draws a QCustomPlot
// widget (a QApplication). On the offscreen platform unless QT_QPA_PLATFORM says otherwise, so no
// display is needed.
std::unique_ptr<QGuiApplication> startPaintingApp(bool widgets);

} // namespace stepscope::bench
