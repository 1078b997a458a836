#include "views/memory_profile/MemoryTimelineChart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace stepscope {

namespace {

// XProf's colours for stack, heap and free (red, orange, green). Bands are filled with the colour
// at 43% over white, opaque: each band is filled down to 0 and the one below drawn over it, which
// needs no blending and no fill between two outlines (both would cost most of a frame).
const QColor kBandColors[] = {QColor(214, 39, 40), QColor(255, 127, 14), QColor(44, 160, 44)};
const QColor kFragmentationColor(100, 70, 170, 210); // a line of its own colour: XProf dashes it

QColor overWhite(const QColor& c, double alpha) {
    const auto mix = [alpha](int v) { return int(std::lround(v * alpha + 255 * (1 - alpha))); };
    return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

QVector<QCPGraphData> graphData(const std::vector<double>& x, const std::vector<double>& y,
                                double scale) {
    QVector<QCPGraphData> d;
    d.reserve(qsizetype(x.size()));
    for (size_t i = 0; i < x.size(); ++i)
        if (!std::isnan(y[i])) d.push_back({x[i], y[i] * scale});
    return d;
}

} // namespace

MemoryTimelineChart::MemoryTimelineChart(QWidget* parent)
    : QWidget(parent)
    , plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(320, 200);
    plot_->setMouseTracking(true);

    const char* names[BandCount] = {"Stack", "Heap", "Free"};
    for (int b : {Free, Heap, Stack}) {
        fills_[b] = plot_->addGraph(plot_->xAxis, plot_->yAxis);
        fills_[b]->setName(tr(names[b]));
        fills_[b]->setLineStyle(QCPGraph::lsStepLeft);
        fills_[b]->setPen(Qt::NoPen);
        fills_[b]->setBrush(overWhite(kBandColors[b], 0.43));
    }
    // Fragmentation under the band lines: it is a side measure, they are the memory.
    fragmentationGraph_ = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
    fragmentationGraph_->setLineStyle(QCPGraph::lsStepLeft);
    fragmentationGraph_->setPen(QPen(kFragmentationColor, 1));
    for (int b : {Free, Heap, Stack}) {
        lines_[b] = plot_->addGraph(plot_->xAxis, plot_->yAxis);
        lines_[b]->setLineStyle(QCPGraph::lsStepLeft);
        lines_[b]->setPen(QPen(kBandColors[b], 1));
    }

    plot_->xAxis->setLabel(tr("Time (ms)"));
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(tr("Fragmentation (%)"));
    plot_->yAxis2->setRange(0, 100);
    plot_->yAxis->setRange(0, 1);

    // The legend in a row of its own above the plot, so it never covers the data.
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setMargins(QMargins(4, 2, 4, 0));

    peakLine_ = new QCPItemStraightLine(plot_);
    peakLine_->setPen(QPen(kBandColors[Stack].darker(140), 1, Qt::DotLine));
    peakLine_->setVisible(false);
    hoverLine_ = new QCPItemStraightLine(plot_);
    hoverLine_->setPen(QPen(QColor(0, 0, 0, 140), 1));
    hoverLine_->setVisible(false);
    for (QCPItemStraightLine* line : {peakLine_, hoverLine_}) {
        line->setSelectable(false);
        line->point1->setTypeX(QCPItemPosition::ptPlotCoords);
        line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
        line->point2->setTypeX(QCPItemPosition::ptPlotCoords);
        line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
        line->point1->setCoords(0, 0);
        line->point2->setCoords(0, 1);
    }

    // Every line and fill is a step (horizontal and vertical edges only): antialiasing gains
    // nothing there and would cost most of a frame.
    plot_->setNotAntialiasedElements(QCP::aeFills | QCP::aePlottables);
    plot_->setPlottingHint(QCP::phFastPolylines, true);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);

    connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& range) {
                if (timeMs_.empty()) return;
                // Keep the view on the data: no further out than one data span beyond it, and
                // no narrower than a nanosecond.
                const double lo = timeMs_.front(), hi = timeMs_.back();
                const double span = std::max(hi - lo, 1e-6);
                QCPRange r = range;
                if (r.size() < 1e-6) r = QCPRange(r.center() - 5e-7, r.center() + 5e-7);
                if (r.size() > 3 * span) r = QCPRange(lo - span, hi + span);
                if (r.lower < lo - span) r = QCPRange(lo - span, lo - span + r.size());
                if (r.upper > hi + span) r = QCPRange(hi + span - r.size(), hi + span);
                if (r != range) {
                    plot_->xAxis->setRange(r); // re-enters with the clamped range
                    return;
                }
                updateVisible();
            });
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (e->buttons() & Qt::LeftButton) {
            clearHover(); // panning
            return;
        }
        hover(e->pos(), e->globalPosition().toPoint());
    });
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        pressed_ = e->button() == Qt::LeftButton;
        pressPos_ = e->pos();
        if (e->button() == Qt::RightButton) resetZoom();
    });
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        const bool click = pressed_ && e->button() == Qt::LeftButton &&
                           (e->pos() - pressPos_).manhattanLength() < 5;
        pressed_ = false;
        if (!click) return;
        const int record = recordAt(e->pos());
        if (record >= 0) emit recordClicked(record);
    });
    setSeries(nullptr, nullptr);
}

void MemoryTimelineChart::setSeries(std::shared_ptr<const MemoryProfile> profile,
                                    const MemorySeries* series) {
    profile_ = std::move(profile);
    series_ = profile_ ? series : nullptr;
    clearHover();
    timeMs_.clear();
    fragmentationPct_.clear();
    for (auto& top : tops_) top.clear();

    const size_t n = series_ ? series_->records.size() : 0;
    maxStackHeap_ = maxTotal_ = 0;
    timeMs_.reserve(n);
    fragmentationPct_.reserve(n);
    for (auto& top : tops_) top.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const AllocationRecord& r = series_->records[i];
        timeMs_.push_back(double(r.timePs) / 1e9);
        const double stack = double(std::max<int64_t>(r.stackReservedBytes, 0));
        const double heap = stack + double(std::max<int64_t>(r.heapAllocatedBytes, 0));
        const double free = heap + double(std::max<int64_t>(r.freeMemoryBytes, 0));
        tops_[Stack].push_back(stack);
        tops_[Heap].push_back(heap);
        tops_[Free].push_back(free);
        fragmentationPct_.push_back(r.fragmentation * 100);
        maxStackHeap_ = std::max(maxStackHeap_, heap);
        maxTotal_ = std::max(maxTotal_, free);
    }
    for (int b = 0; b < BandCount; ++b) topExtrema_[b] = RangeExtrema(tops_[b]);
    fragmentationExtrema_ = RangeExtrema(fragmentationPct_);
    fitMemoryAxis();
    if (series_ && n > 0) {
        const double peak = double(series_->summary.peakTimePs) / 1e9;
        peakLine_->point1->setCoords(peak, 0);
        peakLine_->point2->setCoords(peak, 1);
    }
    peakLine_->setVisible(series_ && n > 0);
    if (!downsampling_) setAllData();
    resetZoom();
}

void MemoryTimelineChart::resetZoom() {
    if (timeMs_.empty()) {
        plot_->xAxis->setRange(0, 1);
    } else {
        const double lo = timeMs_.front(), hi = timeMs_.back();
        const double pad = std::max((hi - lo) * 0.02, 1e-6);
        plot_->xAxis->setRange(lo - pad, hi + pad);
    }
    updateVisible(); // also when the range did not change (a new series)
    plot_->replot();
}

void MemoryTimelineChart::setTimeRange(double t0Ms, double t1Ms) {
    plot_->xAxis->setRange(t0Ms, t1Ms);
    plot_->replot();
}

void MemoryTimelineChart::setDownsampling(bool on) {
    downsampling_ = on;
    setSeries(profile_, series_);
}

void MemoryTimelineChart::setShowFree(bool show) {
    showFree_ = show;
    fitMemoryAxis();
    if (!downsampling_)
        setAllData(); // the units may have changed
    else
        updateVisible();
    plot_->replot();
}

void MemoryTimelineChart::fitMemoryAxis() {
    const double top = freeShown() ? maxTotal_ : maxStackHeap_;
    // GiB, or MiB / KiB when the memory is small, so that axis labels stay short.
    if (top >= double(1ull << 30)) {
        unitBytes_ = double(1ull << 30);
        unitName_ = "GiB";
    } else if (top >= double(1ull << 20)) {
        unitBytes_ = double(1ull << 20);
        unitName_ = "MiB";
    } else {
        unitBytes_ = 1024;
        unitName_ = "KiB";
    }
    plot_->yAxis->setLabel(tr("Memory (%1)").arg(unitName_));
    plot_->yAxis->setRange(0, top > 0 ? top / unitBytes_ * 1.05 : 1);
    fills_[Free]->setVisible(freeShown());
    lines_[Free]->setVisible(freeShown());
    // A curve the allocator does not record is not drawn; the legend says so.
    const auto name = [this](const QString& title, const QString& unit, bool recorded) {
        return series_ && !recorded ? tr("%1: not recorded").arg(title) : title + unit;
    };
    fills_[Stack]->setName(name(tr("Stack"), {}, series_ && series_->hasStack));
    fills_[Free]->setName(name(tr("Free"), {}, series_ && series_->hasFreeMemory));
    fragmentationGraph_->setName(
        name(tr("Fragmentation"), " (%)", series_ && series_->hasFragmentation));
    plot_->legend->clearItems();
    for (QCPGraph* g : {fills_[Stack], fills_[Heap], fills_[Free], fragmentationGraph_})
        if (g != fills_[Free] || showFree_) g->addToLegend();
}

void MemoryTimelineChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateVisible(); // the number of pixel columns changed
}

void MemoryTimelineChart::updateVisible() {
    if (!downsampling_ && !timeMs_.empty()) return; // everything is already there
    const QCPRange range = plot_->xAxis->range();
    const int columns = std::max(plot_->axisRect()->width(), 1);
    const double scale = 1 / unitBytes_;
    drawnPoints_ = 0;
    const auto lineData = [&](const RangeExtrema& extrema, double yScale) {
        const std::span<const double> y = extrema.values();
        QVector<QCPGraphData> d;
        for (uint32_t i : minMaxDownsample(timeMs_, extrema, range.lower, range.upper, columns))
            if (!std::isnan(y[i])) d.push_back({timeMs_[i], y[i] * yScale});
        drawnPoints_ += size_t(d.size());
        return d;
    };
    for (int b = 0; b < BandCount; ++b) {
        if (b == Free && !freeShown()) continue;
        const StepOutline top =
            stepEnvelope(timeMs_, topExtrema_[b], range.lower, range.upper, columns);
        fills_[b]->data()->set(graphData(top.x, top.y, scale), true);
        lines_[b]->data()->set(lineData(topExtrema_[b], scale), true);
        drawnPoints_ += top.x.size();
    }
    fragmentationGraph_->data()->set(lineData(fragmentationExtrema_, 1), true);
}

void MemoryTimelineChart::setAllData() {
    const double scale = 1 / unitBytes_;
    drawnPoints_ = 0;
    for (int b = 0; b < BandCount; ++b) {
        const QVector<QCPGraphData> d = graphData(timeMs_, tops_[b], scale);
        fills_[b]->data()->set(d, true);
        lines_[b]->data()->set(d, true);
        if (b != Free || freeShown()) drawnPoints_ += 2 * size_t(d.size());
    }
    const QVector<QCPGraphData> f = graphData(timeMs_, fragmentationPct_, 1);
    fragmentationGraph_->data()->set(f, true);
    drawnPoints_ += size_t(f.size());
}

int MemoryTimelineChart::recordAt(QPoint plotPos) const {
    if (timeMs_.empty() || !plot_->axisRect()->rect().contains(plotPos)) return -1;
    const double t = plot_->xAxis->pixelToCoord(plotPos.x());
    // The last record at or before t, or the last of the records at the first time after it,
    // whichever is nearer: among records at one time the last is what the step line shows.
    const auto after = std::upper_bound(timeMs_.begin(), timeMs_.end(), t);
    if (after == timeMs_.end()) return int(timeMs_.size()) - 1;
    const auto lastOf = [&](double time) {
        return int(std::upper_bound(timeMs_.begin(), timeMs_.end(), time) - timeMs_.begin()) - 1;
    };
    if (after == timeMs_.begin()) return lastOf(*after);
    const double before = *(after - 1);
    return *after - t < t - before ? lastOf(*after) : int(after - timeMs_.begin()) - 1;
}

void MemoryTimelineChart::hover(QPoint plotPos, QPoint globalPos) {
    const int record = recordAt(plotPos);
    if (record < 0) {
        clearHover();
        return;
    }
    if (record != hovered_) {
        hovered_ = record;
        QStringList lines;
        for (const auto& [name, value] : memoryRecordDetails(*profile_, *series_, size_t(record)))
            lines << QString::fromStdString(name) + ": " + QString::fromStdString(value);
        hoverText_ = lines.join('\n');
        hoverLine_->point1->setCoords(timeMs_[size_t(record)], 0);
        hoverLine_->point2->setCoords(timeMs_[size_t(record)], 1);
        hoverLine_->setVisible(true);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    QToolTip::showText(globalPos, hoverText_, plot_);
}

void MemoryTimelineChart::clearHover() {
    if (hovered_ < 0 && hoverText_.isEmpty()) return;
    hovered_ = -1;
    hoverText_.clear();
    hoverLine_->setVisible(false);
    QToolTip::hideText();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace stepscope
