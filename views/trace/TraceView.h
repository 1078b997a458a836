#pragma once

#include <memory>

#include "model/Table.h"
#include "model/analysis/HloCatalog.h"
#include "views/AnalysisJob.h"
#include "views/ToolView.h"
#include "views/trace/EventSearch.h"
#include "views/trace/SelectionAggregate.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QMenu;
class QScrollBar;
class QSplitter;
class QTabWidget;
class QTextBrowser;
class QTimer;
class QToolButton;

namespace stepscope {

class TimelineCanvas;
class DataTableView;

// The "Trace viewer" tool: the timeline of every GPU stream and host thread, with a search box,
// the selected event's details and the aggregate of a box or range selection. Searches and
// aggregates run in workers (AnalysisJob); a result that a newer search, selection or profile
// superseded is dropped.
class TraceView : public ToolView {
    Q_OBJECT
public:
    explicit TraceView(QWidget* parent = nullptr);
    ~TraceView() override;

    void setProfile(std::shared_ptr<const Profile> profile) override;
    void focusEvent(EventIndex event) override;
    void focusRange(int64_t beginPs, int64_t endPs) override;
    bool isReady() const override { return ready_; }

    TimelineCanvas* canvas() const { return canvas_; }
    // The profile's HLO catalog, built in a worker once per profile; null until it is in (the
    // details pane shows HLO instructions from then on).
    const HloCatalog* hloCatalog() const { return hlo_.get(); }
    QLineEdit* searchBox() const { return search_; }
    QTextBrowser* detailsPane() const { return details_; }
    QLabel* selectionSummary() const { return selectionSummary_; }
    const Table& selectionTable() const { return aggregate_; }
    const std::vector<EventIndex>& searchHits() const { return found_->hits; }
    int currentHit() const { return currentHit_; }
    bool searchRunning() const { return searching_; }
    bool aggregateRunning() const { return aggregating_; }

    // Whether the timeline's keys (W/A/S/D, 1-4, ...) work from any widget of the window (the
    // default: the trace viewer's own tab) or only while focus is inside this view (a trace
    // embedded in another page, such as the Compare runs page's stacked trace, whose keys must
    // not act while the user types in that page's table).
    void setKeysFromWindow(bool fromWindow) { keysFromWindow_ = fromWindow; }

    // Steps to the next (or previous) search hit, selecting it; the zoom stays when the hit fits.
    void stepSearch(bool forward);

    // The menu a right click on the timeline opens for what is under canvas point `pos`: an
    // event's (copy name, find all with this name, zoom to it, show in op stats / kernel stats)
    // or a track's (collapse other sections, hide the track, show hidden tracks). The caller
    // owns it.
    QMenu* contextMenu(QPoint pos);

protected:
    // The timeline's keys work wherever focus is in the trace viewer's window (or, without
    // keysFromWindow, in this view), except in text fields: forwarded here from those widgets
    // while the viewer is showing.
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* e) override;

signals:
    void searchFinished();
    void selectionAggregated();
    void hloCatalogReady();

private:
    void startSearch();
    void cancelSearch();
    void buildHloCatalog();
    void searchDone(std::shared_ptr<const EventSearchResult> result);
    void showDetails(EventIndex e);
    void aggregate(std::vector<Lane> lanes, TimeRange range);
    void cancelAggregate();
    void showAggregateSummary();
    QString selectionHint() const;
    void syncScrollBar();
    void syncToolButtons(int tool);

    // Names longer than this show folded in the details pane, with a link to the rest.
    static constexpr int kFoldedNameChars = 240;

    std::shared_ptr<const Profile> profile_;
    EventIndex expandedName_ = kNoIndex; // the event whose long name the user unfolded
    QSplitter* split_ = nullptr;         // timeline above, details below; remembered
    bool splitRestored_ = false;
    TimelineCanvas* canvas_ = nullptr;
    QToolButton* fitDevices_;
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
    bool keysFromWindow_ = true;

    AnalysisJob<EventSearchResult> searchJob_{this};
    bool searching_ = false;
    // Enter was pressed while the running search was under way: step to its first hit when it
    // is in. Belongs to that search: cleared whenever it is cancelled or superseded.
    bool stepWhenDone_ = false;
    // The last search's result, shared with the job that made it rather than copied: it can
    // hold millions of hits. Never null.
    std::shared_ptr<const EventSearchResult> found_ = std::make_shared<EventSearchResult>();
    int currentHit_ = -1;

    AnalysisJob<HloCatalog> hloJob_{this};
    std::shared_ptr<const HloCatalog> hlo_;

    AnalysisJob<Table> aggregateJob_{this};
    bool aggregating_ = false;
    Table aggregate_;
    TimeRange aggregateRange_;
    uint64_t aggregateCount_ = 0;
};

} // namespace stepscope
