#pragma once

#include <QWidget>
#include <array>
#include <vector>

#include "model/analysis/PodViewer.h"

class QCustomPlot;
class QCPBars;
class QMouseEvent;

namespace stepscope {

// The pod viewer's chart: one stacked column per worker for one step, a segment per step-time
// category (ms), the straggler's column outlined. Hovering a column shows that worker's numbers.
class PodStepChart : public QWidget {
    Q_OBJECT
public:
    explicit PodStepChart(QWidget* parent = nullptr);

    // Shows `step` of `pod` (both kept by the caller while shown); null clears the chart.
    void setStep(const PodAnalysis* pod, const PodStep* step);
    // The hover text for the worker's column; empty when the worker has no such step.
    QString hoverText(size_t worker) const;
    QCustomPlot* plot() const { return plot_; }

private:
    void mouseMoved(QMouseEvent* event);

    QCustomPlot* plot_;
    std::array<QCPBars*, kStepCategoryCount> bars_{};
    const PodAnalysis* pod_ = nullptr;
    const PodStep* step_ = nullptr;
};

} // namespace stepscope
