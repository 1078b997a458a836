#pragma once

#include <QWidget>
#include <array>
#include <memory>
#include <vector>

#include "model/analysis/StepLanes.h"
#include "views/trace/LaneBlocks.h"
#include "views/trace/ZoomControl.h"

namespace stepscope {

// Both lanes of a step pair (collectStepLanes) stacked on one time axis that starts at each
// step's start, so the same op sits at comparable places and the longer step runs further right.
// Drawn with the trace viewer's pieces: ZoomControl's arithmetic (zoom with the wheel at the
// cursor, pan by dragging, both lanes together; double-click shows the whole of the longer
// step), its time axis, its folding of runs of sub-pixel bars into one block with a count (so a
// step of 100k kernels costs pixels, not bars) and its colour per name, here the op's. An op has
// the same colour in both lanes; setHighlight() draws one op's bars bright over the rest faded,
// so the op that grew is visible at a glance. Hovering a bar shows its op, kernel and duration;
// hovering a folded block, how many bars it holds and the op that takes most of its time.
class StepTimeline : public QWidget {
    Q_OBJECT
public:
    explicit StepTimeline(QWidget* parent = nullptr);

    void setLanes(std::shared_ptr<const StepLanes> lanes);
    // Highlights the op of that name (empty: none).
    void setHighlight(const QString& opName);
    // The visible window, ps from the steps' starts.
    int64_t viewBeginPs() const { return zoom_.visibleRange().start; }
    int64_t viewEndPs() const { return zoom_.visibleRange().end; }
    void setView(int64_t beginPs, int64_t endPs);
    const StepLanes* lanes() const { return lanes_.get(); }
    // Blocks the last paint drew for the bars (a folded run counts once).
    size_t lastBlockCount() const { return lastBlocks_; }

    QSize minimumSizeHint() const override { return {300, 120}; }
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    // One op's bars of one row, as columns of the same kind, drawn over the faded rest.
    struct OpBars {
        std::vector<int64_t> beginPs, durationPs;
    };
    // What lies under a point: a block of one row of one lane.
    struct Hit {
        const StepLane* lane = nullptr;
        const StepLane::Row* row = nullptr;
        LaneBlock block;
    };

    std::array<const StepLane*, 2> laneList() const;
    // The time area: right of the row labels, below the axis.
    QRect plotRect() const;
    int laneHeight(const StepLane& lane) const;
    void foldRow(std::span<const int64_t> beginPs, std::span<const int64_t> durationPs,
                 std::vector<LaneBlock>& out) const;
    void paintRow(QPainter& p, const StepLane::Row& row, const OpBars* highlighted, int top);
    bool blockAt(QPoint pos, Hit& hit) const;
    QString toolTipFor(const Hit& hit) const;

    std::shared_ptr<const StepLanes> lanes_;
    std::vector<QRgb> opColors_; // by op index
    uint32_t highlight_;
    std::array<std::vector<OpBars>, 2> highlighted_; // by lane, then row: the highlighted op's
    ZoomControl zoom_;
    QPoint dragFrom_; // the last point of a drag
    std::vector<LaneBlock> blocks_;
    size_t lastBlocks_ = 0;
};

} // namespace stepscope
