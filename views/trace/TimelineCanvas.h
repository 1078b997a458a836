#pragma once

#include <QImage>
#include <QWidget>
#include <memory>
#include <vector>

#include "model/Profile.h"
#include "views/trace/SelectionAggregate.h"
#include "views/trace/TimelineLayout.h"
#include "views/trace/TimelineRenderer.h"
#include "views/trace/ZoomControl.h"

namespace stepscope {

// The timeline widget: track labels on the left, the time axis on top, lanes of events below.
// It owns the zoom state and the selection; painting goes through TimelineRenderer, whose base
// pass is cached as an image so that selecting or hovering redraws only the overlay.
//
// Mouse, as in Perfetto: the wheel scrolls rows, Ctrl+wheel zooms at the cursor, Shift+wheel
// and a horizontal wheel pan; a drag pans (pan tool), selects a box of events (select tool),
// zooms to the dragged span (zoom tool) or selects a time range (timing tool); a click selects
// the event under the cursor, or on a section header folds it; a right click opens the event's
// or the track's menu (contextMenuRequested). Keys as in the Chrome trace viewer: W/S zoom, A/D
// pan, 1-4 tools, F frame the selection, M mark it, 0 show all, G fit the GPUs' activity, Esc
// clear, ? the shortcut sheet (shortcutsRequested).
class TimelineCanvas : public QWidget {
    Q_OBJECT
public:
    enum class Tool { Select, Pan, Zoom, Timing };

    explicit TimelineCanvas(QWidget* parent = nullptr);
    ~TimelineCanvas() override;

    void setProfile(std::shared_ptr<const Profile> profile);
    const Profile* profile() const { return profile_.get(); }
    const TimelineLayout* layout() const { return layout_.get(); }
    const ZoomControl& zoom() const { return zoom_; }

    TimeRange visibleRange() const { return zoom_.visibleRange(); }
    void setVisibleRange(TimeRange r);
    void showAll();
    void zoomBy(double factor, double anchorFraction = 0.5);
    void panBy(double fraction);

    Tool tool() const { return tool_; }
    void setTool(Tool t);

    EventIndex selectedEvent() const { return selected_; }
    // How selectEvent() brings the event into view.
    enum class Framing {
        None,    // leave the view as it is
        Reveal,  // keep the zoom when the event fits the view (panning only when it is off
                 // screen); otherwise as Context
        Context, // zoom so the event fills the middle third, at least kMinContextPs wide
    };
    // The narrowest window Context framing shows: a sub-microsecond kernel is shown with its
    // neighbours, not alone in a 1 µs window.
    static constexpr int64_t kMinContextPs = 20'000'000; // 20 µs
    // Ctrl+wheel zooms by this factor per unit of angle delta (1.2 per notch of 120).
    static constexpr double kWheelZoomPerUnit = 1.0015;

    // Selects an event (kNoIndex clears it), unfolding its section and showing its track.
    void selectEvent(EventIndex e, Framing framing);
    void frameEvent(EventIndex e, Framing framing);
    bool hasRangeSelection() const { return overlay_.hasRange; }
    TimeRange rangeSelection() const { return overlay_.range; }
    void selectRange(TimeRange r, std::vector<Lane> lanes);
    void frameSelection();
    // Frames the span of all device stream events (every GPU/TPU), for profiles whose host
    // activity runs far wider than their GPU work. Returns false when there is none.
    bool frameDeviceActivity();
    // The span of device stream events, empty when the profile has none.
    TimeRange deviceActivityRange() const;
    void markSelection();
    void clearSelection();

    // Events drawn bright over a veil that dims the rest (null: none), and events outlined in
    // red (null: none); see TimelineOverlay.
    void setLinkedEvents(std::shared_ptr<const std::vector<EventIndex>> linked,
                         std::shared_ptr<const std::vector<EventIndex>> flagged);
    const TimelineOverlay& overlay() const { return overlay_; }

    bool showFlows() const { return overlay_.showFlows; }
    void setShowFlows(bool on);

    int scrollY() const { return scrollY_; }
    void setScrollY(int y);
    int maxScrollY() const;
    // Scrolls so that a track's row is in view.
    void ensureTrackVisible(uint32_t track);
    void toggleSection(uint32_t section);
    void collapseAllBut(uint32_t section);
    void setTrackHidden(uint32_t track, bool hidden);
    void showAllTracks();

    // Handles a timeline key (the keys listed above, without Ctrl/Alt/Meta); false for any other
    // key. The trace viewer forwards keys typed while another of its widgets has focus.
    bool handleKey(QKeyEvent* e);

    // What a canvas point is over, for context menus and tests.
    struct PointHit {
        EventIndex event = kNoIndex; // the event under the point
        uint32_t track = kNoIndex;   // the track row (label or lanes) under the point
        int section = -1;            // the section of that row, or of the header
        bool onHeader = false;       // on a section header or a track label
    };
    PointHit hitAt(QPoint canvasPos) const;

    // The canvas point at the middle of an event's visible part; (-1, -1) when not shown.
    QPoint pointOf(EventIndex e) const;
    // Every lane of every shown track (what a time-range selection covers).
    std::vector<Lane> allLanes() const;

signals:
    void eventSelected(stepscope::EventIndex e); // kNoIndex when the selection was cleared
    void rangeSelected(std::vector<stepscope::Lane> lanes, stepscope::TimeRange range);
    void rangeCleared();
    void viewChanged(); // visible range, scroll or layout changed
    void toolChanged(int tool);
    // A right click: the window shows the menu for what is under `pos` (canvas coordinates).
    void contextMenuRequested(stepscope::TimelineCanvas::PointHit hit, QPoint globalPos);
    void shortcutsRequested();

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    void leaveEvent(QEvent* e) override;
    bool event(QEvent* e) override;

private:
    TimelineFrame frame() const;
    double anchorFractionAt(QPoint p) const;
    EventIndex pickEvent(QPoint pos, const LayoutHit& hit) const;
    std::vector<Lane> lanesBetween(int canvasY0, int canvasY1) const;
    void changed();
    void clampScroll();

    std::shared_ptr<const Profile> profile_;
    std::unique_ptr<TimelineLayout> layout_;
    std::unique_ptr<TimelineRenderer> renderer_;
    ZoomControl zoom_;
    TimelineOverlay overlay_;
    EventIndex selected_ = kNoIndex;
    Tool tool_ = Tool::Select;
    int scrollY_ = 0;

    // The cached base pass and what it was drawn for.
    QImage base_;
    TimeRange baseRange_;
    int baseScroll_ = -1;
    uint64_t layoutVersion_ = 0, baseLayoutVersion_ = ~0ull;

    // Drag state.
    bool dragging_ = false;
    QPoint pressPos_, lastPos_;
    bool dragMoved_ = false;
    QPoint hover_{-1, -1};
};

} // namespace stepscope
