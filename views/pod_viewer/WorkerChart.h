#pragma once

#include <QString>
#include <functional>

class QCustomPlot;
class QMouseEvent;

namespace stepscope {

// What the pod viewer's per-worker column charts (PodStepChart, DistributedChart) share.

// Workers along x without grid lines, the legend in a row above the plot, `legendWrap` entries
// a row, filled column by column. Call once the plot's bars exist.
void setUpWorkerPlot(QCustomPlot* plot, int legendWrap);

// The tooltip for the mouse at `event`: `text(worker)` when the mouse lies within `halfWidth`
// of that worker's column centre (x = the worker's index), hidden where that text is empty.
void showWorkerTip(QCustomPlot* plot, QMouseEvent* event, double halfWidth,
                   const std::function<QString(size_t)>& text);

} // namespace stepscope
