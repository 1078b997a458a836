#pragma once

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "model/Profile.h"
#include "model/analysis/StepAnalysis.h"

namespace stepscope {

// The GPU work of one step of one run, laid out for drawing: one row per GPU stream that ran
// something in the step, times in ps from the step's start.
struct StepLane {
    std::string title; // "Baseline step 5"
    int64_t durationPs = 0;
    std::vector<std::string> rows; // stream names ("GPU:0 Stream #7")
    struct Bar {
        int64_t beginPs = 0, endPs = 0;
        int row = 0;
        uint32_t op = 0;      // into StepLanes::ops
        EventIndex event = 0; // in its profile
        std::string kernel;   // the event's name
    };
    std::vector<Bar> bars;
};

// The same step of both runs, with one op table for both lanes so that an op has one index (and
// one colour) in both.
struct StepLanes {
    StepLane base, candidate;
    std::vector<std::string> ops; // op names, as the diff's op rows name them
};

// Collects the GPU stream events that start inside each step (as RunDiff counts them), named by
// their framework op (OpCatalog, the diff's op rule). Runs in a worker.
StepLanes collectStepLanes(const Profile& base, const StepRecord& baseStep,
                           const Profile& candidate, const StepRecord& candidateStep);

// Both lanes stacked on one time axis that starts at each step's start, so the same op sits at
// comparable places and the longer step runs further right. Zoom (wheel, at the cursor) and pan
// (drag) act on both lanes together; double-click shows the whole of the longer step. An op has
// the same colour in both lanes; setHighlight() draws one op's events bright and the rest faded,
// so the op that grew is visible at a glance. Hovering a bar shows its op, kernel and duration.
class StepTimeline : public QWidget {
    Q_OBJECT
public:
    explicit StepTimeline(QWidget* parent = nullptr);

    void setLanes(std::shared_ptr<const StepLanes> lanes);
    // Highlights the op of that name (empty: none).
    void setHighlight(const QString& opName);
    // The visible window, ps from the steps' starts.
    int64_t viewBeginPs() const { return viewBegin_; }
    int64_t viewEndPs() const { return viewEnd_; }
    void setView(int64_t beginPs, int64_t endPs);
    const StepLanes* lanes() const { return lanes_.get(); }

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
    int64_t fullSpanPs() const;
    double xOf(int64_t ps) const;
    int64_t psAt(double x) const;
    // The bar under a point, or null; sets *lane to the lane it belongs to.
    const StepLane::Bar* barAt(QPoint p, const StepLane** lane) const;

    std::shared_ptr<const StepLanes> lanes_;
    uint32_t highlight_ = 0xFFFFFFFFu;
    int64_t viewBegin_ = 0, viewEnd_ = 1;
    QPoint dragFrom_;
    int64_t dragBegin_ = 0, dragEnd_ = 0;
};

} // namespace stepscope
