#pragma once

#include <QPoint>
#include <QWidget>
#include <array>
#include <memory>
#include <vector>

#include "model/MinMaxDownsample.h"
#include "model/analysis/MemoryProfile.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;

namespace stepscope {

// The memory timeline of one memory id (QCustomPlot): stack, heap and free memory stacked as
// steps (each event's values hold until the next event), in GiB (MiB or KiB when the memory is
// small), time in ms from the profile start; fragmentation % on the right axis. The legend names
// each curve, "<curve>: not recorded" where the allocator records none of it.
//
// - Wheel zooms time at the cursor, dragging pans, right-click or resetZoom() shows everything.
// - Each frame draws only what its pixels can show (model/MinMaxDownsample.h): each band is
//   filled up to its largest value in every pixel column (stepEnvelope), and its top line keeps,
//   per column, the first and last event and the events where it is lowest and highest
//   (minMaxDownsample). Each column's extremes come from a RangeExtrema index built once per
//   series, so no peak is ever lost and a frame costs pixels x log(events), not events.
// - Hovering shows the details of the event nearest the cursor in time (memoryRecordDetails);
//   a left click (without dragging) on the plot emits recordClicked for that event.
class MemoryTimelineChart : public QWidget {
    Q_OBJECT
public:
    explicit MemoryTimelineChart(QWidget* parent = nullptr);

    // Shows `series` of `profile` (nullptr clears). The chart keeps `profile` alive.
    void setSeries(std::shared_ptr<const MemoryProfile> profile, const MemorySeries* series);
    void resetZoom();
    // Shows [t0, t1] in ms.
    void setTimeRange(double t0Ms, double t1Ms);
    // Off: every event goes to QCustomPlot (the benchmark's baseline). On by default.
    void setDownsampling(bool on);
    // Whether free memory is stacked on top (as XProf; on by default). Off, the memory axis fits
    // stack + heap. An allocator that never reports free memory has no free area either way.
    void setShowFree(bool show);

    // The record nearest in time to a point of the plot widget; -1 when none (no data, or the
    // point lies outside the plot area).
    int recordAt(QPoint plotPos) const;
    // The details of the record under the cursor, one "name: value" line each; empty when the
    // cursor is not over the plot.
    QString hoverText() const { return hoverText_; }
    int hoveredRecord() const { return hovered_; }
    // Points handed to QCustomPlot for the current frame, over all curves.
    size_t drawnPoints() const { return drawnPoints_; }
    QString unitName() const { return unitName_; }
    QCustomPlot* plot() const { return plot_; }

signals:
    void recordClicked(int record);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void updateVisible();
    // Free memory drawn: wanted and reported.
    bool freeShown() const { return showFree_ && series_ && series_->hasFreeMemory; }
    // Fits the memory axis and the legend to what is drawn.
    void fitMemoryAxis();
    // Hands every record to every graph (the baseline).
    void setAllData();
    void hover(QPoint plotPos, QPoint globalPos);
    void clearHover();

    QCustomPlot* plot_;
    // Stack, heap and free: stacked, so each band's top is a running sum (see setSeries).
    enum Band { Stack, Heap, Free, BandCount };
    std::array<QCPGraph*, BandCount> fills_{}; // filled to 0, drawn free first, stack last
    std::array<QCPGraph*, BandCount> lines_{}; // each band's top
    QCPGraph* fragmentationGraph_;
    QCPItemStraightLine* peakLine_;
    QCPItemStraightLine* hoverLine_;

    std::shared_ptr<const MemoryProfile> profile_;
    const MemorySeries* series_ = nullptr;
    // Per record: time (ms), each band's top (bytes) and fragmentation (%).
    std::vector<double> timeMs_, fragmentationPct_;
    std::array<std::vector<double>, BandCount> tops_;
    // Range extremes of tops_ and fragmentationPct_, built once per series for the per-frame
    // downsampling.
    std::array<RangeExtrema, BandCount> topExtrema_;
    RangeExtrema fragmentationExtrema_;
    double unitBytes_ = 1;
    double maxStackHeap_ = 0, maxTotal_ = 0; // bytes
    QString unitName_;
    bool downsampling_ = true;
    bool showFree_ = true;
    size_t drawnPoints_ = 0;
    int hovered_ = -1;
    QString hoverText_;
    QPoint pressPos_;
    bool pressed_ = false;
};

} // namespace stepscope
