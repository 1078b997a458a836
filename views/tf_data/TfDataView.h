#pragma once

#include <memory>

#include "model/analysis/TfDataBottleneck.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QLabel;
class QTabWidget;

namespace stepscope {

class DataTableView;
class TfDataGraph;

// "tf.data bottleneck analysis": a summary (input-bound verdict, the slowest pipeline, its
// latency, its bottleneck iterator with kind, long name and advice), the table of every input
// pipeline per host, and for the pipeline chosen in it the slowest execution as an iterator graph
// and as a table. Double-clicking a pipeline shows its slowest execution in the trace viewer.
class TfDataView : public ToolView {
    Q_OBJECT
public:
    explicit TfDataView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }

    // Shows the pipeline of bottleneck-analysis row `row` (slowest first).
    void selectPipeline(int row);
    const TfDataAnalysis* analysis() const { return analysis_.get(); }
    DataTableView* pipelineTable() const { return pipelines_; }
    TfDataGraph* graph() const { return graph_; }
    QLabel* summary() const { return summary_; }

private:
    void showAnalysis();

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const TfDataAnalysis> analysis_;

    QLabel* status_;
    QLabel* summary_;
    DataTableView* pipelines_;
    QTabWidget* tabs_;
    TfDataGraph* graph_;
    DataTableView* iterators_;

    ViewAnalysis<TfDataAnalysis> job_; // after the widgets its hooks use
};

} // namespace stepscope
