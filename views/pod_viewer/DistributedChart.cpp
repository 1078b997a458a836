#include "views/pod_viewer/DistributedChart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include "views/pod_viewer/WorkerChart.h"

namespace stepscope {

namespace {

constexpr double kPsPerUs = 1e6;
// Column offsets: the breakdown column left of the worker's tick, the wait column right of it.
constexpr double kLeft = -0.18, kRight = 0.18, kWidth = 0.32;

struct Series {
    const char* name;
    QColor color;
    bool wait; // in the transfer/synchronizing column
};
const Series kSeries[6] = {
    {"Computation", QColor(31, 119, 180), false},    {"Overlapping", QColor(44, 160, 44), false},
    {"Communication", QColor(148, 103, 189), false}, {"Other", QColor(199, 199, 199), false},
    {"Data transfer", QColor(23, 190, 207), true},   {"Synchronizing", QColor(214, 39, 40), true},
};

std::array<double, 6> valuesUs(const DistributedStep& s) {
    const bool known = s.commTransferPs >= 0;
    return {double(s.computationOnlyPs()) / kPsPerUs,
            double(s.overlapPs) / kPsPerUs,
            double(s.communicationOnlyPs()) / kPsPerUs,
            double(s.otherPs) / kPsPerUs,
            known ? double(s.commTransferPs) / kPsPerUs : 0.0,
            known ? double(s.commLatencyPs - s.commTransferPs) / kPsPerUs : 0.0};
}

} // namespace

DistributedChart::DistributedChart(QWidget* parent)
    : QWidget(parent)
    , plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(280, 200);
    plot_->setMouseTracking(true);
    QCPBars* below[2] = {nullptr, nullptr};
    for (size_t i = 0; i < bars_.size(); ++i) {
        // Communication is often a thousandth of the step: its column has an axis of its own.
        auto* bars = new QCPBars(plot_->xAxis, kSeries[i].wait ? plot_->yAxis2 : plot_->yAxis);
        bars->setName(tr(kSeries[i].name));
        bars->setBrush(kSeries[i].color);
        bars->setPen(QPen(kSeries[i].color.darker(130), 1));
        bars->setWidth(kWidth);
        QCPBars*& under = below[kSeries[i].wait ? 1 : 0];
        if (under) bars->moveAbove(under);
        under = bars;
        bars_[i] = bars;
    }
    plot_->yAxis->setLabel(tr("Step breakdown (µs), left columns"));
    plot_->yAxis2->setLabel(tr("Communication (µs), right columns"));
    plot_->yAxis2->setVisible(true);
    setUpWorkerPlot(plot_, 3);
    connect(plot_, &QCustomPlot::mouseMove, this, &DistributedChart::mouseMoved);
    setStep(nullptr, {}, {});
}

const DistributedStep* DistributedChart::stepOf(size_t worker) const {
    if (!view_ || worker >= view_->workers.size()) return nullptr;
    for (const DistributedStep& s : view_->workers[worker].steps)
        if (s.name == step_) return &s;
    return nullptr;
}

void DistributedChart::setStep(const DistributedView* view, const std::vector<std::string>& names,
                               const std::string& step) {
    view_ = view;
    names_ = names;
    step_ = step;
    for (QCPBars* b : bars_) b->data()->clear();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0, topWait = 0;
    const size_t workers = view ? view->workers.size() : 0;
    for (size_t w = 0; w < workers; ++w) {
        ticker->addTick(double(w), QString::fromStdString(w < names.size() ? names[w] : ""));
        const DistributedStep* s = stepOf(w);
        if (!s) continue;
        const std::array<double, 6> v = valuesUs(*s);
        double sums[2] = {0, 0};
        for (size_t i = 0; i < v.size(); ++i) {
            bars_[i]->addData(double(w) + (kSeries[i].wait ? kRight : kLeft), v[i]);
            sums[kSeries[i].wait ? 1 : 0] += v[i];
        }
        top = std::max(top, sums[0]);
        topWait = std::max(topWait, sums[1]);
    }
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(-0.6, workers ? double(workers) - 0.4 : 0.6);
    plot_->yAxis->setRange(0, top > 0 ? top * 1.08 : 1);
    plot_->yAxis2->setRange(0, topWait > 0 ? topWait * 1.08 : 1);
    plot_->replot();
}

QString DistributedChart::hoverText(size_t worker) const {
    const DistributedStep* s = stepOf(worker);
    if (!s) return {};
    QString text = tr("<b>%1</b>, step %2")
                       .arg(QString::fromStdString(names_[worker]).toHtmlEscaped(),
                            QString::fromStdString(step_).toHtmlEscaped());
    const std::array<double, 6> v = valuesUs(*s);
    for (size_t i = 0; i < v.size(); ++i) {
        if (kSeries[i].wait && s->commTransferPs < 0) continue;
        text += tr("<br>%1: %2 µs").arg(tr(kSeries[i].name)).arg(v[i], 0, 'f', 1);
    }
    if (s->commTransferPs < 0) text += tr("<br>Data transfer and synchronizing: not known");
    return text;
}

void DistributedChart::mouseMoved(QMouseEvent* event) {
    showWorkerTip(plot_, event, 0.4, [this](size_t worker) { return hoverText(worker); });
}

} // namespace stepscope
