#pragma once

#include <memory>

#include "model/analysis/Overview.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;

namespace stepscope {

class DataTableView;
class StackedStepChart;

// "Overview", as XProf's overview page: the performance summary (step time, its breakdown by
// category, device compute precision, op placement, the input verdict), the step-time graph
// (stacked by category; hover for a step's numbers, click to open it in the trace viewer), the
// recommendations (double-click one to open its evidence), GPU time per device (table and
// stacked bars), the top-10 device ops, the per-step table and the run environment. When the
// profile has no steps the page says so and lets the user find steps by a name pattern, which is
// remembered per profile (QSettings).
class OverviewView : public ToolView {
    Q_OBJECT
public:
    explicit OverviewView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }
    // With a comparison, the recommendations end with what changed in the candidate against
    // this profile, the baseline (runDiffFindings).
    void setComparison(std::shared_ptr<const RunDiff> diff, const QString& candidate) override;

    const Overview* overview() const { return overview_.get(); }
    QLineEdit* stepPatternEdit() const { return pattern_; }
    DataTableView* recommendationsView() const { return recommendations_; }
    StackedStepChart* stepChart() const { return chart_; }
    // The summary as shown, one "name: value" line each (for tests and copying).
    QString summaryText() const;

    // The step pattern remembered for this profile (empty: none), which the input pipeline page
    // uses too so that both pages see the same steps.
    static QString rememberedStepPattern(const Profile& profile);

    // Finds steps by this name pattern (empty: as the profile records them) and remembers it.
    void applyStepPattern(const QString& pattern);

private:
    void start(const QString& pattern);
    void show();
    void openRecommendation(int row);
    // The time range of the i-th step of the graph and the step table (the PyTorch plugin's
    // steps on PyTorch profiles); false when there is none.
    bool stepRange(int i, int64_t& begin, int64_t& end) const;
    void showTorchSteps(QString& html);

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const Overview> overview_;
    std::vector<Recommendation> comparison_; // the comparison's findings
    QString comparedWith_;                   // the candidate; empty: no comparison
    QString comparisonNote_;                 // shown when there are no findings

    QLabel* status_;
    QLabel* completeness_;
    QLineEdit* pattern_;
    QPushButton* applyPattern_;
    QLabel* summary_;
    StackedStepChart* chart_;
    StackedStepChart* gpuChart_;
    QTabWidget* tabs_;
    DataTableView* recommendations_;
    DataTableView* gpuTable_;
    DataTableView* topOps_;
    DataTableView* precision_;
    DataTableView* steps_;
    DataTableView* environment_;

    ViewAnalysis<Overview> job_; // after the widgets its hooks use
};

} // namespace stepscope
