#pragma once

#include <memory>

#include "model/analysis/KernelStats.h"
#include "views/AnalysisJob.h"
#include "views/ToolView.h"

class QLabel;

namespace stepscope {

class DataTableView;
class PieChart;

// "GPU kernel stats": a pie of the kernels taking the most time, then the kernel table with
// filters on kernel name and op name. Double-clicking a row asks the window to show that row's
// longest instance in the trace viewer (showEventRequested).
class KernelStatsView : public ToolView {
    Q_OBJECT
public:
    explicit KernelStatsView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return ready_; }
    bool showName(const QString& name) override;

    DataTableView* tableView() const { return table_; }
    PieChart* pie() const { return pie_; }

private:
    void showStats();

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const KernelStats> stats_;
    AnalysisJob<KernelStats> job_{this};
    bool ready_ = true;

    QLabel* status_;
    PieChart* pie_;
    DataTableView* table_;
};

} // namespace stepscope
