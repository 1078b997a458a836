#pragma once

#include <memory>

#include "model/analysis/InputPipeline.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QLabel;
class QTabWidget;

namespace stepscope {

class DataTableView;
class StackedStepChart;

// "Input pipeline analyzer", as XProf's page: the input-bound verdict and the share of step time
// waiting for input; the device side (input vs other per step, step time mean, stddev, min,
// max); the host side (the breakdown of input time into enqueue, demanded and advanced file
// read, preprocessing and other) and the input op table. The steps are the overview's (the same
// analysis); clicking a step opens it in the trace viewer.
class InputPipelineView : public ToolView {
    Q_OBJECT
public:
    explicit InputPipelineView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }

    const InputPipeline* result() const { return result_.get(); }
    DataTableView* inputOpsView() const { return ops_; }
    StackedStepChart* stepChart() const { return chart_; }
    QString summaryText() const;

protected:
    // Analyzes again when the overview's step pattern for this profile changed since.
    void showEvent(QShowEvent* event) override;

private:
    void show();

    std::shared_ptr<const Profile> profile_;
    QString pattern_; // the step pattern of the last analysis
    std::shared_ptr<const InputPipeline> result_;

    QLabel* status_;
    QLabel* summary_;
    StackedStepChart* chart_;
    QTabWidget* tabs_;
    DataTableView* ops_;
    DataTableView* breakdown_;
    DataTableView* steps_;

    ViewAnalysis<InputPipeline> job_; // after the widgets its hooks use
};

} // namespace stepscope
