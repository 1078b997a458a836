#pragma once

#include <QFont>
#include <QPainter>
#include <QRect>
#include <QString>
#include <memory>
#include <vector>

#include "model/Profile.h"
#include "views/trace/EventPalette.h"
#include "views/trace/LaneBlocks.h"
#include "views/trace/SelectionAggregate.h"
#include "views/trace/TimelineLayout.h"
#include "views/trace/ZoomControl.h"

namespace stepscope {

// What one frame shows: the canvas size, the visible time range and the vertical scroll.
struct TimelineFrame {
    QSize size;
    TimeRange visible;
    int scrollY = 0;
};

// What is drawn over the events and changes without touching them.
struct TimelineOverlay {
    EventIndex selected = kNoIndex;
    bool showFlows = true;
    bool hasRange = false;
    TimeRange range;         // the selected time range
    std::vector<Lane> lanes; // with a box selection: its lanes (empty: every lane)
    bool hasMark = false;
    TimeRange mark;
    EventIndex hovered = kNoIndex;
    // Linked events (e.g. one op in both of two stacked runs): drawn bright over a veil that dims
    // everything else. Null: nothing linked, nothing dimmed.
    std::shared_ptr<const std::vector<EventIndex>> linked;
    // Events outlined in red whatever is linked (e.g. the ops a run diff classes as slower).
    std::shared_ptr<const std::vector<EventIndex>> flagged;
};

// Draws the timeline in two passes. The base pass (lanes, labels, axis) depends only on the
// frame and the layout, so a canvas can keep it as an image; the overlay pass (selection, marks,
// flow arrows) is cheap and redrawn alone when only the selection changes. Lanes are drawn from
// foldLane()'s blocks, so a frame costs pixels x lanes, not events.
class TimelineRenderer {
public:
    static constexpr int kGutterWidth = 300;
    static constexpr int kAxisHeight = 28;
    static constexpr double kMinEventPx = 2.0;
    static constexpr int kMinLabelPx = 28;
    // With flows on, the arrows of every visible launch are drawn only while there is at least
    // this much width per arrow; denser arrows hide the events they join, so then only the
    // selected event's arrows are drawn.
    static constexpr int kPixelsPerFlowArrow = 25;

    TimelineRenderer(const Profile& profile, const TimelineLayout& layout);

    void paintBase(QPainter& painter, const TimelineFrame& frame);
    void paintOverlay(QPainter& painter, const TimelineFrame& frame,
                      const TimelineOverlay& overlay);

    static QRect timelineRect(QSize size) {
        return QRect(kGutterWidth, kAxisHeight, std::max(1, size.width() - kGutterWidth),
                     std::max(1, size.height() - kAxisHeight));
    }
    // Canvas y of a layout y, and back.
    static int canvasY(int layoutY, const TimelineFrame& f) {
        return kAxisHeight + layoutY - f.scrollY;
    }
    static int layoutY(int canvasY, const TimelineFrame& f) {
        return canvasY - kAxisHeight + f.scrollY;
    }
    // Canvas x of time t, and back.
    static double canvasX(int64_t t, const TimelineFrame& f);
    static int64_t timeAt(double canvasX, const TimelineFrame& f);

    // The drawn block under a canvas point, as the last frame would have drawn it.
    bool blockAt(const TimelineFrame& frame, QPoint pos, LaneBlock& block, Lane& lane);
    // Canvas rectangle of an event (clamped horizontally near the canvas), or an empty rect
    // when its track is hidden.
    QRectF eventRect(const TimelineFrame& frame, EventIndex e) const;

    // The section whose header is pinned at the top of the timeline (its header has scrolled
    // away while some of its tracks are in view), with the header's canvas top; -1 when none.
    int pinnedSection(const TimelineFrame& frame, int* canvasTop = nullptr) const;
    // The pinned section when canvas y lies on its header, else -1.
    int pinnedSectionAt(const TimelineFrame& frame, int canvasY) const;

    // Blocks the last base pass drew (merged blocks count once); for the benchmark.
    size_t lastBlockCount() const { return lastBlocks_; }

private:
    void paintAxis(QPainter& p, const TimelineFrame& f);
    void paintSectionHeader(QPainter& p, const TimelineFrame& f, const TimelineRow& row, int top);
    void paintLanes(QPainter& p, const TimelineFrame& f, const TimelineRow& row, int top);
    void paintFlows(QPainter& p, const TimelineFrame& f, const TimelineOverlay& o);
    void paintLinked(QPainter& p, const TimelineFrame& f, const TimelineOverlay& o);
    bool flowEnd(const TimelineFrame& f, EventIndex e, QPointF& out) const;
    // Event names by metadata index, converted and measured the first time they are drawn.
    const QString& nameText(uint32_t meta);
    int nameWidth(uint32_t meta);

    const Profile& profile_;
    const TimelineLayout& layout_;
    EventPalette palette_;
    QFont font_, boldFont_, smallFont_;
    std::vector<QString> names_;  // by metadata index; null: not converted yet
    std::vector<int> nameWidths_; // by metadata index; -1: not measured yet
    std::vector<LaneBlock> blocks_;
    size_t lastBlocks_ = 0;
};

} // namespace stepscope
