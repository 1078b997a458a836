#pragma once

#include <QFutureWatcher>
#include <memory>

#include "model/Progress.h"
#include "model/Table.h"
#include "views/ToolView.h"
#include "views/trace/EventSearch.h"
#include "views/trace/SelectionAggregate.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QScrollBar;
class QTabWidget;
class QTextBrowser;
class QTimer;
class QToolButton;

namespace stepscope {

class TimelineCanvas;
class DataTableView;

// The "Trace viewer" tool: the timeline of every GPU stream and host thread, with a search box,
// the selected event's details and the aggregate of a box or range selection. Searches and
// aggregates run in workers; a result whose job id is stale is dropped.
class TraceView : public ToolView {
    Q_OBJECT
public:
    explicit TraceView(QWidget* parent = nullptr);
    ~TraceView() override;

    void setProfile(std::shared_ptr<const Profile> profile) override;
    void focusEvent(EventIndex event) override;
    bool isReady() const override { return ready_; }

    TimelineCanvas* canvas() const { return canvas_; }
    QLineEdit* searchBox() const { return search_; }
    QTextBrowser* detailsPane() const { return details_; }
    const Table& selectionTable() const { return aggregate_; }
    const std::vector<EventIndex>& searchHits() const { return hits_; }
    int currentHit() const { return currentHit_; }
    bool searchRunning() const { return searchWatcher_.isRunning(); }
    bool aggregateRunning() const { return aggregateWatcher_.isRunning(); }

    // Steps to the next (or previous) search hit, selecting and framing it.
    void stepSearch(bool forward);

signals:
    void searchFinished();
    void selectionAggregated();

private:
    void startSearch();
    void searchDone();
    void showDetails(EventIndex e);
    void aggregate(std::vector<Lane> lanes, TimeRange range);
    void aggregateDone();
    void showAggregateSummary();
    void syncScrollBar();
    void syncToolButtons(int tool);

    std::shared_ptr<const Profile> profile_;
    TimelineCanvas* canvas_ = nullptr;
    QScrollBar* vscroll_ = nullptr;
    QToolButton* toolButtons_[4] = {};
    QCheckBox* flows_ = nullptr;
    QLineEdit* search_ = nullptr;
    QCheckBox* regex_ = nullptr;
    QLabel* searchCount_ = nullptr;
    QTimer* searchDelay_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QTextBrowser* details_ = nullptr;
    QLabel* selectionSummary_ = nullptr;
    DataTableView* table_ = nullptr;
    bool ready_ = false;

    struct SearchJob {
        uint64_t id = 0;
        std::shared_ptr<Progress> progress;
    };
    SearchJob searchJob_;
    QFutureWatcher<std::pair<uint64_t, EventSearchResult>> searchWatcher_;
    std::vector<EventIndex> hits_;
    int currentHit_ = -1;
    bool stepWhenDone_ = false;

    uint64_t aggregateJob_ = 0;
    std::shared_ptr<Progress> aggregateProgress_;
    QFutureWatcher<std::pair<uint64_t, Table>> aggregateWatcher_;
    Table aggregate_;
    TimeRange aggregateRange_;
    uint64_t aggregateCount_ = 0;
};

} // namespace stepscope
