#include "views/roofline/RooflineChart.h"

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace stepscope {

namespace {

// The colour of a precision's points and roofs.
QColor precisionColor(Precision p) {
    switch (p) {
    case Precision::FP4:
        return QColor(148, 103, 189);
    case Precision::FP8:
        return QColor(227, 119, 194);
    case Precision::INT8:
        return QColor(140, 86, 75);
    case Precision::FP16:
        return QColor(255, 127, 14);
    case Precision::BF16:
        return QColor(31, 119, 180);
    case Precision::TF32:
        return QColor(23, 190, 207);
    case Precision::FP32:
        return QColor(44, 160, 44);
    case Precision::FP64:
        return QColor(214, 39, 40);
    case Precision::Unknown:
        break;
    }
    return QColor(127, 127, 127);
}

} // namespace

RooflineChart::RooflineChart(QWidget* parent)
    : QWidget(parent)
    , plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(320, 220);
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        axis->setTicker(ticker);
        axis->setNumberFormat("eb");
        axis->setNumberPrecision(0);
    }
    plot_->xAxis->setLabel(tr("Operational intensity (FLOP/byte)"));
    plot_->yAxis->setLabel(tr("FLOP/s"));
    plot_->legend->setVisible(true);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setBrush(QColor(255, 255, 255, 210));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);

    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        const int id = pointAt(e->position());
        if (id < 0) return;
        setSelected(id);
        emit pointClicked(id);
    });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* e) {
        const int id = pointAt(e->position());
        if (id >= 0) emit pointActivated(id);
    });
    rebuild();
}

void RooflineChart::setData(std::vector<Point> points, std::vector<Roof> roofs) {
    points_ = std::move(points);
    roofs_ = std::move(roofs);
    if (std::none_of(points_.begin(), points_.end(),
                     [&](const Point& p) { return p.id == selected_; }))
        selected_ = -1;
    rebuild();
}

void RooflineChart::setSelected(int id) {
    selected_ = id;
    QVector<QCPCurveData> d;
    for (const Point& p : points_)
        if (p.id == id) d.push_back({0, p.intensity, p.flopsPerSecond});
    selection_->data()->set(d, true);
    plot_->replot();
}

int RooflineChart::pointAt(QPointF pos) const {
    constexpr double kRadius = 7; // pixels
    int best = -1;
    double bestDistance = kRadius * kRadius;
    for (const Point& p : points_) {
        const double x = plot_->xAxis->coordToPixel(p.intensity);
        const double y = plot_->yAxis->coordToPixel(p.flopsPerSecond);
        const double d = (x - pos.x()) * (x - pos.x()) + (y - pos.y()) * (y - pos.y());
        if (d <= bestDistance) {
            bestDistance = d;
            best = p.id;
        }
    }
    return best;
}

void RooflineChart::rebuild() {
    plot_->clearPlottables();
    // Roofs first, under the points: bandwidth x intensity up to the ridge, the peak after it.
    fitAxes();
    const QCPRange x = plot_->xAxis->range();
    for (const Roof& roof : roofs_) {
        auto* line = new QCPCurve(plot_->xAxis, plot_->yAxis);
        line->setName(roof.label);
        // Matrix-unit roofs solid, vector-unit roofs dashed.
        line->setPen(QPen(precisionColor(roof.precision).darker(115), 1.6,
                          roof.matrixUnits ? Qt::SolidLine : Qt::DashLine));
        QVector<QCPCurveData> d;
        if (roof.bandwidth > 0 && roof.peakFlops > 0) {
            const double ridge = roof.peakFlops / roof.bandwidth;
            const double left = std::min(x.lower, ridge / 10);
            d = {{0, left, roof.bandwidth * left},
                 {1, ridge, roof.peakFlops},
                 {2, std::max(x.upper, ridge * 10), roof.peakFlops}};
        } else if (roof.peakFlops > 0) {
            d = {{0, x.lower, roof.peakFlops}, {1, x.upper, roof.peakFlops}};
        }
        line->data()->set(d, true);
    }
    // The points, one curve per precision (in Precision's order, for a stable legend).
    for (size_t pi = 0; pi < kPrecisionCount; ++pi) {
        QVector<QCPCurveData> d;
        for (const Point& p : points_)
            if (size_t(p.precision) == pi)
                d.push_back({double(d.size()), p.intensity, p.flopsPerSecond});
        if (d.isEmpty()) continue;
        auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
        curve->setName(QString::fromUtf8(precisionName(Precision(pi)).data()) + tr(" ops"));
        curve->setLineStyle(QCPCurve::lsNone);
        const QColor c = precisionColor(Precision(pi));
        curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c.darker(130),
                                               QColor(c.red(), c.green(), c.blue(), 170), 7));
        curve->data()->set(d, true);
    }
    selection_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
    selection_->setLineStyle(QCPCurve::lsNone);
    selection_->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2), Qt::NoBrush, 15));
    plot_->legend->removeItem(plot_->legend->itemCount() - 1); // the selection ring has no entry
    setSelected(selected_);
}

void RooflineChart::fitAxes() {
    // Decades that hold every point and every ridge, with a decade of margin.
    double xLo = 1e300, xHi = 0, yLo = 1e300, yHi = 0;
    for (const Point& p : points_) {
        xLo = std::min(xLo, p.intensity);
        xHi = std::max(xHi, p.intensity);
        yLo = std::min(yLo, p.flopsPerSecond);
        yHi = std::max(yHi, p.flopsPerSecond);
    }
    for (const Roof& r : roofs_) {
        if (r.peakFlops > 0) yHi = std::max(yHi, r.peakFlops);
        if (r.peakFlops > 0 && r.bandwidth > 0) {
            xLo = std::min(xLo, r.peakFlops / r.bandwidth);
            xHi = std::max(xHi, r.peakFlops / r.bandwidth);
        }
    }
    if (xHi <= 0 || yHi <= 0) {
        plot_->xAxis->setRange(1e-2, 1e4);
        plot_->yAxis->setRange(1e9, 1e16);
        return;
    }
    const auto decade = [](double v, bool up) {
        return std::pow(10.0, up ? std::ceil(std::log10(v)) : std::floor(std::log10(v)));
    };
    plot_->xAxis->setRange(decade(xLo, false) / 10, decade(xHi, true) * 10);
    plot_->yAxis->setRange(decade(std::min(yLo, yHi), false) / 10, decade(yHi, true) * 3);
}

} // namespace stepscope
