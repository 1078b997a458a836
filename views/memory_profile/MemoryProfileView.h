#pragma once

#include <memory>

#include "model/analysis/MemoryProfile.h"
#include "views/ToolView.h"
#include "views/ViewAnalysis.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;

namespace stepscope {

class DataTableView;
class MemoryTimelineChart;

// "Memory profile", as XProf's page: a memory id selector (one entry per allocator of each loaded
// host, opening on MemoryProfile::defaultSeries), the summary (allocations, capacity, lifetime
// peak, the peak in the window with its time, stack, heap, free memory and fragmentation there),
// the memory timeline (MemoryTimelineChart) and the breakdown of allocations live at the peak.
// Clicking the timeline, or double-clicking a breakdown row, asks the window to show that
// allocation event in the trace viewer (showEventRequested).
class MemoryProfileView : public ToolView {
    Q_OBJECT
public:
    explicit MemoryProfileView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile) override;
    bool isReady() const override { return job_.ready(); }

    // Shows the memory id with this label; false if the profile has none such.
    bool selectMemoryId(const QString& label);
    QString currentMemoryId() const;
    QComboBox* memoryIdSelector() const { return selector_; }
    MemoryTimelineChart* chart() const { return chart_; }
    DataTableView* breakdownView() const { return table_; }
    // The summary as shown, one "name: value" line each (for tests and copying).
    QString summaryText() const;
    // The warning above the summary ("" when none is shown) and the breakdown's title, as shown.
    QString warningText() const;
    QString breakdownTitle() const;

private:
    // Fills the memory id selector from the result; empties it without one.
    void fillSelector();
    void showSeries();
    const MemorySeries* currentSeries() const;

    std::shared_ptr<const Profile> profile_;
    std::shared_ptr<const MemoryProfile> memory_;

    QLabel* status_;
    QComboBox* selector_;
    QPushButton* resetZoom_;
    QCheckBox* showFree_;
    QLabel* warning_;
    QWidget* summary_;
    std::vector<std::pair<QLabel*, QLabel*>> summaryRows_;
    MemoryTimelineChart* chart_;
    QLabel* breakdownTitle_;
    DataTableView* table_;

    ViewAnalysis<MemoryProfile> job_; // after the widgets its hooks use
};

} // namespace stepscope
