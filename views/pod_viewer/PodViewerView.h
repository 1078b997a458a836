#pragma once

#include <memory>

#include "model/analysis/PodViewer.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTabWidget;

namespace stepscope {

class DataTableView;
class DistributedChart;
class PodStepChart;

// "Pod viewer": every worker of the run (host files, or ranks of a PyTorch job) side by side.
// A step slider and a step number box pick a step; the chart stacks that step's breakdown per
// worker; a summary names the stragglers (step time, collective wait, last to start collectives)
// for the step and over all steps; tables list the step per worker, each worker over all steps
// and the collective kernels behind the collective time. "Show in trace viewer" opens the trace
// viewer (All hosts) on the step's marker of the chosen worker.
class PodViewerView : public ToolView {
    Q_OBJECT
public:
    explicit PodViewerView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }

    // Shows the step at `index` in the analysis' step order.
    void selectStepIndex(int index);
    int stepIndex() const;
    const PodAnalysis* analysis() const { return pod_.get(); }
    PodStepChart* chart() const { return chart_; }
    DataTableView* stepTable() const { return steps_; }
    QLabel* summary() const { return summary_; }
    QTabWidget* tabs() const { return tabs_; }
    DataTableView* distributedStepTable() const { return distributedSteps_; }
    DataTableView* distributedOpTable() const { return distributedOps_; }
    DistributedChart* distributedChart() const { return distributedChart_; }

private:
    void showAnalysis();
    void showStep();
    void showDistributed();
    void showInTrace();

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const PodAnalysis> pod_;

    QLabel* status_;
    QLabel* summary_;
    QSlider* slider_;
    QSpinBox* stepBox_;
    QPushButton* traceButton_;
    PodStepChart* chart_;
    QTabWidget* tabs_;
    DataTableView* steps_;
    DataTableView* workers_;
    DataTableView* kernels_;
    // PyTorch's distributed view, a tab shown for PyTorch workers.
    QWidget* distributedPage_;
    QLabel* distributedNote_;
    DistributedChart* distributedChart_;
    DataTableView* distributedSteps_;
    DataTableView* distributedOps_;

    ViewAnalysis<PodAnalysis> job_; // after the widgets its hooks use
};

} // namespace stepscope
