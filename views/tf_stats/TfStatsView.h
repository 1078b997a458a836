#pragma once

#include <array>
#include <memory>

#include "model/analysis/TfOpStats.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QCheckBox;
class QGridLayout;
class QTabWidget;
class QLabel;
class QWidget;

namespace stepscope {

class DataTableView;
class PieChart;

// "TensorFlow op stats": up to four pies of self time (device by op, device by op type, host by
// op, host by op type; only those with data), the op table below, and the "Include idle" toggle.
// The analysis runs in a worker; toggling idle only rebuilds the table and pies from its result.
// Double-clicking a row asks the window to show the op's longest event in the trace viewer.
class TfStatsView : public ToolView {
    Q_OBJECT
public:
    explicit TfStatsView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }
    bool showName(const QString& name) override;

    void setIncludeIdle(bool include);
    DataTableView* tableView() const { return table_; }
    // Pies shown (with data; side by side or in tabs), for tests.
    int visiblePieCount() const;
    // Whether the pies are in tabs (the window is too narrow for them side by side).
    bool piesInTabs() const;

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void showStats();
    void arrangePies();

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const TfOpStats> stats_;

    QLabel* status_;
    QCheckBox* includeIdle_;
    QWidget* pieRow_;
    QWidget* pieSideBySide_ = nullptr;
    QGridLayout* pieGrid_ = nullptr;
    QTabWidget* pieTabs_ = nullptr;
    std::array<bool, 4> hasData_{}; // the pie has slices (is shown)
    std::array<PieChart*, 4> pies_{};
    DataTableView* table_;

    ViewAnalysis<TfOpStats> job_; // after the widgets its hooks use
};

} // namespace stepscope
