#pragma once

#include <memory>

#include "model/analysis/Roofline.h"
#include "model/analysis/RooflineTable.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QComboBox;
class QLabel;

namespace stepscope {

class DataTableView;
class RooflineChart;

// "Roofline model" (XProf's roofline_model): the roofline chart of one step (or the whole
// profile) above its table (rooflineTable: a Program row per program, then its ops). Selecting a
// table row rings its point; clicking a point selects its row; double-clicking either shows the
// op's longest event in the trace viewer. Below the chart, where each roof comes from.
class RooflineView : public ToolView {
    Q_OBJECT
public:
    explicit RooflineView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }
    bool showName(const QString& name) override;

    DataTableView* tableView() const { return table_; }
    RooflineChart* chart() const { return chart_; }
    // -1: every step together. A chart point's id is its table row (source index).
    void setStep(int32_t step);

private:
    void showStep();
    void selectRow(int sourceRow);

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const Roofline> roofline_;
    RooflineTable shown_;

    QLabel* status_;
    QComboBox* step_;
    RooflineChart* chart_;
    QLabel* sources_;
    DataTableView* table_;

    ViewAnalysis<Roofline> job_; // after the widgets its hooks use
};

} // namespace stepscope
