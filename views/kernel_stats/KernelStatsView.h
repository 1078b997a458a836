#pragma once

#include <memory>

#include "model/analysis/KernelStats.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QComboBox;
class QLabel;

namespace stepscope {

class DataTableView;
class PieChart;

// "GPU kernel stats": a pie of the kernels taking the most time, then the kernel table with
// filters on kernel name and op name, grouped as the "Group by" choice says (groupKernelStats).
// Double-clicking a row asks the window to show that row's longest instance in the trace viewer
// (showEventRequested).
class KernelStatsView : public ToolView {
    Q_OBJECT
public:
    explicit KernelStatsView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }
    bool showName(const QString& name) override;

    DataTableView* tableView() const { return table_; }
    PieChart* pie() const { return pie_; }
    // The table's grouping (the "Group by" choice); XProf's by default.
    void setGrouping(KernelGrouping grouping);

private:
    void showStats();

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const KernelStats> stats_;
    KernelStats shown_; // stats_ grouped as chosen: what the table shows

    QLabel* status_;
    PieChart* pie_;
    QComboBox* groupBy_ = nullptr;
    DataTableView* table_;

    ViewAnalysis<KernelStats> job_; // after the widgets its hooks use
};

} // namespace stepscope
