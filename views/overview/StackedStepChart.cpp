#include "views/overview/StackedStepChart.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <qcustomplot.h>

namespace stepscope {

StackedStepChart::StackedStepChart(QWidget* parent)
    : QWidget(parent)
    , plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumHeight(180);
    // The legend sits in its own row under the plot, so it never hides a column.
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->plotLayout()->addElement(1, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setWrap(5);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
}

void StackedStepChart::clear() {
    plot_->clearPlottables();
    hover_.clear();
    count_ = 0;
    plot_->replot();
}

void StackedStepChart::setData(const QStringList& labels, const std::vector<Series>& series,
                               const QStringList& hover, const QString& valueAxis,
                               const QString& keyAxis) {
    plot_->clearPlottables();
    hover_ = hover;
    count_ = int(labels.size());
    QVector<double> keys(count_);
    for (int i = 0; i < count_; ++i) keys[i] = i;
    QCPBars* below = nullptr;
    double top = 0;
    std::vector<double> height(size_t(count_), 0.0);
    for (const Series& s : series) {
        bool any = false;
        for (double v : s.values) any = any || v > 0;
        if (!any) continue;
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(s.name);
        bars->setPen(Qt::NoPen);
        bars->setBrush(s.color);
        bars->setWidthType(QCPBars::wtPlotCoords);
        bars->setWidth(0.8);
        bars->setData(keys, QVector<double>(s.values.begin(), s.values.end()), true);
        if (below) bars->moveAbove(below);
        below = bars;
        for (size_t i = 0; i < height.size() && i < s.values.size(); ++i) {
            height[i] += s.values[i];
            top = std::max(top, height[i]);
        }
    }
    // Category axis: at most ~25 labels so they never overlap.
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    const int every = std::max(1, int(std::ceil(count_ / 25.0)));
    for (int i = 0; i < count_; i += every) ticker->addTick(i, labels[i]);
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(-0.6, std::max(0, count_ - 1) + 0.6);
    plot_->yAxis->setLabel(valueAxis);
    plot_->xAxis->setLabel(keyAxis);
    plot_->yAxis->setRange(0, top > 0 ? top * 1.05 : 1);
    plot_->legend->setVisible(below != nullptr);
    fitLegend();
    plot_->replot();
}

void StackedStepChart::fitLegend() {
    // As many legend columns as the widest entry allows, so no name is cut.
    const QFontMetrics metrics(plot_->legend->font());
    int widest = 0;
    for (int i = 0; i < plot_->plottableCount(); ++i)
        widest = std::max(widest, metrics.horizontalAdvance(plot_->plottable(i)->name()));
    const int item = widest + plot_->legend->iconSize().width() + plot_->legend->iconTextPadding() +
                     24; // item margins and spacing
    const int columns = std::max(1, (plot_->width() - 20) / std::max(1, item));
    if (columns != plot_->legend->wrap()) {
        plot_->legend->setWrap(columns);
        plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

int StackedStepChart::columnAt(const QPoint& pos) const {
    if (count_ == 0 || !plot_->axisRect()->rect().contains(pos)) return -1;
    const double key = plot_->xAxis->pixelToCoord(pos.x());
    const int i = int(std::lround(key));
    if (i < 0 || i >= count_ || std::abs(key - i) > 0.4) return -1;
    return i;
}

bool StackedStepChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_) {
        if (event->type() == QEvent::Resize) {
            fitLegend();
            plot_->replot(QCustomPlot::rpQueuedReplot);
        } else if (event->type() == QEvent::MouseMove) {
            auto* m = static_cast<QMouseEvent*>(event);
            const int i = columnAt(m->position().toPoint());
            if (i >= 0 && i < hover_.size())
                QToolTip::showText(m->globalPosition().toPoint(), hover_[i], plot_);
            else
                QToolTip::hideText();
        } else if (event->type() == QEvent::MouseButtonRelease) {
            auto* m = static_cast<QMouseEvent*>(event);
            const int i = columnAt(m->position().toPoint());
            if (i >= 0 && m->button() == Qt::LeftButton) emit stepClicked(i);
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace stepscope
