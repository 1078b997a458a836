#include "views/pod_viewer/PodViewerView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "views/pod_viewer/DistributedChart.h"
#include "views/pod_viewer/PodStepChart.h"
#include "widgets/DataTableView.h"

namespace stepscope {

namespace {

QString workerName(const PodAnalysis& pod, int worker) {
    return QString::fromStdString(pod.workers[size_t(worker)].name).toHtmlEscaped();
}

// One straggler line: "<b>what</b>: worker, value (median, +excess)" or "none stands out".
QString stragglerLine(const PodAnalysis& pod, const QString& what, const PodStraggler& s,
                      const QString& unitText) {
    if (s.worker < 0) return QObject::tr("%1: no worker above the median").arg(what);
    return QObject::tr("%1: <b>%2</b>, %3 %4 (median %5 ms, +%6 ms)")
        .arg(what, workerName(pod, s.worker))
        .arg(s.valueMs, 0, 'f', 3)
        .arg(unitText)
        .arg(s.medianMs, 0, 'f', 3)
        .arg(s.excessMs, 0, 'f', 3);
}

// The step to open on: where one worker's step time is furthest above the median, else its
// collective wait, else the first step.
int worstStep(const PodAnalysis& pod) {
    for (auto which : {&PodStep::stepTime, &PodStep::collectiveWait}) {
        int best = -1;
        for (size_t i = 0; i < pod.steps.size(); ++i) {
            const PodStraggler& s = pod.steps[i].*which;
            if (s.worker >= 0 &&
                (best < 0 || s.excessMs > (pod.steps[size_t(best)].*which).excessMs))
                best = int(i);
        }
        if (best >= 0) return best;
    }
    return 0;
}

} // namespace

PodViewerView::PodViewerView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , summary_(new QLabel(this))
    , slider_(new QSlider(Qt::Horizontal, this))
    , stepBox_(new QSpinBox(this))
    , traceButton_(new QPushButton(tr("Show in trace viewer"), this))
    , chart_(new PodStepChart(this))
    , tabs_(new QTabWidget(this))
    , steps_(new DataTableView(this))
    , workers_(new DataTableView(this))
    , kernels_(new DataTableView(this))
    , distributedPage_(new QWidget(this))
    , distributedNote_(new QLabel(distributedPage_))
    , distributedChart_(new DistributedChart(distributedPage_))
    , distributedSteps_(new DataTableView(distributedPage_))
    , distributedOps_(new DataTableView(distributedPage_))
    , job_(this, tr("pod viewer"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take = [this](std::shared_ptr<const PodAnalysis> r) { pod_ = std::move(r); },
            .show = [this] { showAnalysis(); }}) {
    status_->setWordWrap(true);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stepBox_->setToolTip(tr("Step number"));
    slider_->setToolTip(tr("Pick a step"));
    traceButton_->setToolTip(tr("Open the trace viewer on this step of the worker chosen in the "
                                "step table (the first worker when none is chosen)"));
    steps_->setExportFileName("pod_viewer_step.csv");
    workers_->setExportFileName("pod_viewer_workers.csv");
    kernels_->setExportFileName("pod_viewer_collective_kernels.csv");
    steps_->tableView()->setToolTip(tr("Double-click a worker to show its step in the trace "
                                       "viewer"));
    tabs_->addTab(steps_, tr("Step per worker"));
    tabs_->addTab(workers_, tr("Workers over all steps"));
    tabs_->addTab(kernels_, tr("Collective kernels"));

    distributedNote_->setWordWrap(true);
    distributedSteps_->setExportFileName("pod_viewer_pytorch_distributed_steps.csv");
    distributedOps_->setExportFileName("pod_viewer_pytorch_communication_ops.csv");
    auto* distributedTables = new QSplitter(Qt::Vertical, distributedPage_);
    distributedTables->addWidget(distributedSteps_);
    distributedTables->addWidget(distributedOps_);
    distributedTables->setChildrenCollapsible(false);
    auto* distributedSplit = new QSplitter(Qt::Horizontal, distributedPage_);
    distributedSplit->addWidget(distributedChart_);
    distributedSplit->addWidget(distributedTables);
    distributedSplit->setStretchFactor(0, 2);
    distributedSplit->setStretchFactor(1, 3);
    distributedSplit->setChildrenCollapsible(false);
    auto* distributedLayout = new QVBoxLayout(distributedPage_);
    distributedLayout->setContentsMargins(0, 0, 0, 0);
    distributedLayout->addWidget(distributedNote_);
    distributedLayout->addWidget(distributedSplit, 1);
    distributedPage_->hide();

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Step"), this));
    controls->addWidget(slider_, 1);
    controls->addWidget(stepBox_);
    controls->addWidget(traceButton_);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(chart_);
    splitter->addWidget(tabs_);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(summary_);
    layout->addLayout(controls);
    layout->addWidget(splitter, 1);

    connect(slider_, &QSlider::valueChanged, this, [this](int index) { selectStepIndex(index); });
    connect(stepBox_, &QSpinBox::valueChanged, this, [this](int number) {
        if (!pod_ || pod_->steps.empty()) return;
        // The step with that number, else the nearest one at or above it (numbers can skip).
        size_t i = 0;
        while (i + 1 < pod_->steps.size() && pod_->steps[i].number < number) ++i;
        selectStepIndex(int(i));
    });
    connect(traceButton_, &QPushButton::clicked, this, &PodViewerView::showInTrace);
    connect(steps_, &DataTableView::rowActivated, this, [this](int) { showInTrace(); });
    setProfile(nullptr);
}

void PodViewerView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(
        profile_, profile_ ? tr("Loading %1 workers…").arg(profile_->hosts().size()) : QString(),
        [](const Profile& p, const Progress* progress) { return computePodViewer(p, progress); });
}

void PodViewerView::showAnalysis() {
    const bool any = pod_ && !pod_->steps.empty();
    slider_->setEnabled(any);
    stepBox_->setEnabled(any);
    traceButton_->setEnabled(any);
    workers_->setTable(pod_ ? podWorkerTable(*pod_) : Table());
    kernels_->setTable(pod_ ? podKernelTable(*pod_) : Table());
    showDistributed();
    if (!pod_) {
        summary_->clear();
        chart_->setStep(nullptr, nullptr);
        steps_->setTable(Table());
        return;
    }
    QStringList problems;
    for (const PodWorker& w : pod_->workers)
        if (!w.error.empty())
            problems << tr("%1: %2").arg(QString::fromStdString(w.name),
                                         QString::fromStdString(w.error));
    QString text = tr("%1 of %2 workers analysed, %3 steps.")
                       .arg(pod_->loadedWorkers())
                       .arg(pod_->workers.size())
                       .arg(pod_->steps.size());
    if (!problems.isEmpty()) text += " " + problems.join("; ");
    status_->setText(text);
    if (!any) {
        summary_->setText(tr("No worker has steps, so there is nothing to compare."));
        chart_->setStep(nullptr, nullptr);
        steps_->setTable(Table());
        return;
    }
    {
        const QSignalBlocker a(slider_), b(stepBox_);
        slider_->setRange(0, int(pod_->steps.size()) - 1);
        stepBox_->setRange(int(pod_->steps.front().number), int(pod_->steps.back().number));
    }
    selectStepIndex(worstStep(*pod_));
}

int PodViewerView::stepIndex() const {
    return slider_->value();
}

void PodViewerView::selectStepIndex(int index) {
    if (!pod_ || index < 0 || size_t(index) >= pod_->steps.size()) return;
    const PodStep& step = pod_->steps[size_t(index)];
    {
        const QSignalBlocker a(slider_), b(stepBox_);
        slider_->setValue(index);
        stepBox_->setValue(int(step.number));
    }
    showStep();
}

void PodViewerView::showStep() {
    const PodStep& step = pod_->steps[size_t(slider_->value())];
    chart_->setStep(pod_.get(), &step);
    steps_->setTable(podStepTable(*pod_, step.number));
    if (pod_->pytorch) {
        const std::vector<std::string> names = pod_->distributedNames();
        const std::string stepName = std::to_string(step.number);
        distributedSteps_->setTable(
            stepscope::distributedStepTable(pod_->distributed, names, stepName));
        distributedChart_->setStep(&pod_->distributed, names, stepName);
    }
    const PodAnalysis& pod = *pod_;
    summary_->setText(
        tr("<b>Step %1</b> — %2<br>%3<br>%4<br><b>All steps</b> — %5<br>%6<br>%7")
            .arg(step.number)
            .arg(stragglerLine(pod, tr("Slowest step"), step.stepTime, tr("ms")))
            .arg(stragglerLine(pod, tr("Most collective wait"), step.collectiveWait, tr("ms")))
            .arg(stragglerLine(pod, tr("Last to start collectives"), step.lastToStart,
                               tr("ms after the first")))
            .arg(stragglerLine(pod, tr("Slowest mean step"), pod.stepTime, tr("ms")))
            .arg(stragglerLine(pod, tr("Most mean collective wait"), pod.collectiveWait, tr("ms")))
            .arg(stragglerLine(pod, tr("Last to start collectives on average"), pod.lastToStart,
                               tr("ms after the first"))));
}

void PodViewerView::showDistributed() {
    const bool show = pod_ && pod_->pytorch;
    const int at = tabs_->indexOf(distributedPage_);
    if (show && at < 0) tabs_->addTab(distributedPage_, tr("PyTorch distributed"));
    if (!show) {
        if (at >= 0) tabs_->removeTab(at);
        distributedSteps_->setTable(Table());
        distributedOps_->setTable(Table());
        distributedChart_->setStep(nullptr, {}, {});
        return;
    }
    const DistributedView& v = pod_->distributed;
    QString note =
        tr("As the PyTorch profiler's TensorBoard plugin: communication = the nccl:/gloo: "
           "collectives and their kernels, computation = other kernels; data transfer "
           "= the shortest time any worker spends in each collective, synchronizing = "
           "the rest.");
    if (!v.transferKnown)
        note += " " + tr("Data transfer and synchronizing are not known: %1.")
                          .arg(QString::fromStdString(v.problem));
    distributedNote_->setText(note);
    distributedSteps_->setTable(stepscope::distributedStepTable(v, pod_->distributedNames()));
    distributedOps_->setTable(stepscope::distributedOpTable(v, pod_->distributedNames()));
}

void PodViewerView::showInTrace() {
    if (!pod_ || !profile_ || pod_->steps.empty()) return;
    const PodStep& step = pod_->steps[size_t(slider_->value())];
    // The worker of the chosen row, else the first one that has the step.
    size_t worker = step.cells.size();
    const std::vector<size_t> rows = steps_->visibleRows();
    const QModelIndex current = steps_->tableView()->currentIndex();
    if (current.isValid() && size_t(current.row()) < rows.size()) {
        const Table& t = steps_->table();
        const std::string& name = t.text(rows[size_t(current.row())], 1);
        for (size_t w = 0; w < pod_->workers.size(); ++w)
            if (pod_->workers[w].name == name) worker = w;
    }
    if (worker == step.cells.size())
        for (size_t w = 0; w < step.cells.size() && worker == step.cells.size(); ++w)
            if (step.cells[w].present) worker = w;
    const EventIndex e = podStepEvent(*profile_, *pod_, step, worker);
    if (e != kNoIndex) emit showEventRequested(e);
}

} // namespace stepscope
