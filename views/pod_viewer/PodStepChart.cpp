#include "views/pod_viewer/PodStepChart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include "views/pod_viewer/WorkerChart.h"

namespace stepscope {

namespace {

// One colour per StepCategory, in its order: input-like time warm, device time cool, collectives
// purple so that the straggler's story (compute vs. waiting) reads at a glance.
const QColor kCategoryColors[kStepCategoryCount] = {
    QColor(150, 150, 150), // compilation
    QColor(214, 39, 40),   // input
    QColor(255, 127, 14),  // output
    QColor(188, 189, 34),  // kernel launch
    QColor(140, 86, 75),   // host compute
    QColor(148, 103, 189), // device collectives
    QColor(23, 190, 207),  // device to device
    QColor(44, 160, 44),   // device compute 16
    QColor(31, 119, 180),  // device compute 32
    QColor(199, 199, 199), // all others
};

constexpr double kPsPerMs = 1e9;

} // namespace

PodStepChart::PodStepChart(QWidget* parent)
    : QWidget(parent)
    , plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumSize(320, 220);
    plot_->setMouseTracking(true);
    QCPBars* below = nullptr;
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(QString::fromUtf8(stepCategoryName(StepCategory(c)).data(),
                                        qsizetype(stepCategoryName(StepCategory(c)).size())));
        bars->setBrush(kCategoryColors[c]);
        bars->setPen(QPen(kCategoryColors[c].darker(130), 1));
        bars->setWidth(0.6);
        if (below) bars->moveAbove(below);
        below = bars;
        bars_[c] = bars;
    }
    plot_->yAxis->setLabel(tr("Step time (ms)"));
    setUpWorkerPlot(plot_, 5);
    connect(plot_, &QCustomPlot::mouseMove, this, &PodStepChart::mouseMoved);
    setStep(nullptr, nullptr);
}

void PodStepChart::setStep(const PodAnalysis* pod, const PodStep* step) {
    pod_ = pod;
    step_ = step;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    for (size_t c = 0; c < kStepCategoryCount; ++c) bars_[c]->data()->clear();
    // The legend lists the categories that have time anywhere in the run.
    std::array<bool, kStepCategoryCount> used{};
    if (pod)
        for (const PodStep& s : pod->steps)
            for (const PodCell& c : s.cells)
                for (size_t k = 0; k < kStepCategoryCount; ++k)
                    used[k] = used[k] || c.step.categoryPs[k] > 0;
    for (size_t k = 0; k < kStepCategoryCount; ++k) bars_[k]->removeFromLegend();
    for (size_t k = 0; k < kStepCategoryCount; ++k)
        if (used[k]) bars_[k]->addToLegend();
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    if (pod && step) {
        for (size_t w = 0; w < pod->workers.size(); ++w) {
            QString label = QString::fromStdString(pod->workers[w].name);
            if (step->stepTime.worker == int(w)) label += tr("\n(straggler)");
            if (!pod->workers[w].error.empty()) label += tr("\n(not loaded)");
            ticker->addTick(double(w), label);
            const PodCell& cell = step->cells[w];
            if (!cell.present) continue;
            for (size_t c = 0; c < kStepCategoryCount; ++c)
                bars_[c]->addData(double(w), double(cell.step.categoryPs[c]) / kPsPerMs);
            top = std::max(top, double(cell.step.durationPs) / kPsPerMs);
        }
        plot_->xAxis->setRange(-0.6, double(pod->workers.size()) - 0.4);
    } else {
        plot_->xAxis->setRange(-0.6, 0.6);
    }
    plot_->xAxis->setTicker(ticker);
    plot_->yAxis->setRange(0, top > 0 ? top * 1.08 : 1);
    plot_->replot();
}

QString PodStepChart::hoverText(size_t worker) const {
    if (!pod_ || !step_ || worker >= step_->cells.size() || !step_->cells[worker].present)
        return {};
    const PodCell& c = step_->cells[worker];
    QString text = tr("<b>%1</b>, step %2<br>Step time: %3 ms")
                       .arg(QString::fromStdString(pod_->workers[worker].name).toHtmlEscaped())
                       .arg(step_->number)
                       .arg(double(c.step.durationPs) / kPsPerMs, 0, 'f', 3);
    for (size_t k = kStepCategoryCount; k-- > 0;) {
        if (c.step.categoryPs[k] == 0) continue;
        const std::string_view name = stepCategoryName(StepCategory(k));
        text +=
            tr("<br>%1: %2 ms (%3%)")
                .arg(QString::fromUtf8(name.data(), qsizetype(name.size())))
                .arg(double(c.step.categoryPs[k]) / kPsPerMs, 0, 'f', 3)
                .arg(100.0 * double(c.step.categoryPs[k]) / double(c.step.durationPs), 0, 'f', 1);
    }
    if (c.collectivePs > 0)
        text += tr("<br>Collective kernels: %1 ms, %2% overlapped by compute")
                    .arg(double(c.collectivePs) / kPsPerMs, 0, 'f', 3)
                    .arg(100.0 * double(c.collectiveOverlapPs) / double(c.collectivePs), 0, 'f', 1);
    return text;
}

void PodStepChart::mouseMoved(QMouseEvent* event) {
    showWorkerTip(plot_, event, 0.3, [this](size_t worker) { return hoverText(worker); });
}

} // namespace stepscope
