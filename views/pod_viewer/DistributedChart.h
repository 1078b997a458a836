#pragma once

#include <QWidget>
#include <array>
#include <string>
#include <vector>

#include "model/analysis/PytorchDistributed.h"

class QCustomPlot;
class QCPBars;
class QMouseEvent;

namespace stepscope {

// PyTorch's distributed view as the plugin draws it: per worker, one stacked column of the step's
// computation, overlapping, communication and other time (left axis), and beside it one of its
// data transfer and synchronizing time (right axis, µs). Hovering a column shows the worker's
// numbers.
class DistributedChart : public QWidget {
    Q_OBJECT
public:
    explicit DistributedChart(QWidget* parent = nullptr);

    // Shows step `step` (a step name, e.g. "551") of every worker of `view`, which the caller
    // keeps while shown; null clears the chart.
    void setStep(const DistributedView* view, const std::vector<std::string>& workerNames,
                 const std::string& step);
    QString hoverText(size_t worker) const;
    QCustomPlot* plot() const { return plot_; }

private:
    void mouseMoved(QMouseEvent* event);
    const DistributedStep* stepOf(size_t worker) const;

    QCustomPlot* plot_;
    std::array<QCPBars*, 6> bars_{};
    const DistributedView* view_ = nullptr;
    std::vector<std::string> names_;
    std::string step_;
};

} // namespace stepscope
