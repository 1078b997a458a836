#include "views/run_diff/RunDiffView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "model/TimeFormat.h"
#include "model/analysis/RunDiffFindings.h"
#include "model/analysis/RunDiffTable.h"
#include "widgets/DataTableView.h"

namespace stepscope {

RunDiffView::RunDiffView(QWidget* parent)
    : ToolView(parent)
    , candidateLabel_(new QLabel(this))
    , chooseFile_(new QPushButton(tr("File…"), this))
    , chooseFolder_(new QPushButton(tr("Folder…"), this))
    , cancel_(new QPushButton(tr("Cancel"), this))
    , runBox_(new QComboBox(this))
    , hostBox_(new QComboBox(this))
    , hostMatching_(new QComboBox(this))
    , tables_(new QTabBar(this))
    , pythonFunctions_(new QCheckBox(tr("Python functions"), this))
    , align_(new QComboBox(this))
    , shift_(new QSpinBox(this))
    , status_(new QLabel(this))
    , summary_(new QLabel(this))
    , table_(new DataTableView(this))
    , pair_(new QSpinBox(this))
    , pairLabel_(new QLabel(this))
    , timeline_(new StepTimeline(this))
    , stacked_(new StackedTraceView(this)) {
    candidateLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long paths and messages wrap or clip; they never widen the window.
    candidateLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    cancel_->setVisible(false);
    tables_->setObjectName("diffTables");
    tables_->setDocumentMode(true);
    tables_->setExpanding(false);
    for (auto [by, name] : {std::pair{DiffBy::Category, tr("Step breakdown")},
                            {DiffBy::Op, tr("Ops")},
                            {DiffBy::Kernel, tr("Kernels")},
                            {DiffBy::HostOp, tr("Host ops")}})
        tables_->setTabData(tables_->addTab(name), int(by));
    tables_->setTabToolTip(3, tr("What ran on the host threads: PyTorch cpu_op, user_annotation "
                                 "and runtime calls, TensorFlow / JAX host ops; calls, total and "
                                 "self time, the verdict on calls and self time per step"));
    tables_->setCurrentIndex(1);
    pythonFunctions_->setObjectName("diffPythonFunctions");
    pythonFunctions_->setToolTip(tr("Host ops: compare PyTorch's python_function events too "
                                    "(a Python trace holds many of them per operator)"));
    align_->setObjectName("diffAlign");
    align_->addItem(tr("Auto (by order)"), int(StepAlignment::Auto));
    align_->addItem(tr("By order"), int(StepAlignment::ByOrder));
    align_->addItem(tr("By step number"), int(StepAlignment::ByNumber));
    align_->setToolTip(tr("How candidate steps are paired with baseline steps. Auto pairs by "
                          "order and leaves out up to %1 extra steps at the start of either run "
                          "when that pairs far closer steps.")
                           .arg(kMaxAutoShift));
    shift_->setRange(-1000, 1000);
    shift_->setEnabled(false);
    shift_->setToolTip(tr("Pair baseline step i with candidate step i + shift"));
    status_->setWordWrap(true);
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_->setExportFileName("run_diff.csv");

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Candidate:"), this));
    top->addWidget(candidateLabel_, 1);
    top->addWidget(new QLabel(tr("Run:"), this));
    top->addWidget(runBox_);
    top->addWidget(new QLabel(tr("Host:"), this));
    top->addWidget(hostBox_);
    top->addWidget(hostMatching_);
    top->addWidget(chooseFile_);
    top->addWidget(chooseFolder_);
    top->addWidget(cancel_);
    hostMatching_->setObjectName("diffHostMatching");
    hostMatching_->addItem(tr("Hosts: auto"), int(HostMatching::Auto));
    hostMatching_->addItem(tr("Hosts by name"), int(HostMatching::ByName));
    hostMatching_->addItem(tr("Hosts by order"), int(HostMatching::ByOrder));
    hostMatching_->setToolTip(tr("How the runs' hosts (ranks) are paired; each pair is compared "
                                 "on its own. Auto: by name when the runs share a host name, "
                                 "else by order."));
    runBox_->setObjectName("candidateRun");
    hostBox_->setObjectName("candidateHost");
    runBox_->setToolTip(tr("The candidate's run"));
    hostBox_->setToolTip(tr("The candidate's host (all hosts side by side, or one)"));
    runBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    hostBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    runBox_->setMinimumContentsLength(8);
    hostBox_->setMinimumContentsLength(8);
    chooseFile_->setToolTip(tr("Choose the candidate: a profile file"));
    chooseFolder_->setToolTip(tr("Choose the candidate: a log directory or run folder"));
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Pair steps:"), this));
    controls->addWidget(align_);
    controls->addWidget(new QLabel(tr("Shift:"), this));
    controls->addWidget(shift_);
    controls->addSpacing(12);
    controls->addWidget(pythonFunctions_);
    controls->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(controls);
    layout->addWidget(status_);
    // What changed, one finding a line; a long list (long kernel names) scrolls in at most four
    // lines instead of squeezing the table.
    auto* summaryScroll = new QScrollArea(this);
    summaryScroll->setWidget(summary_);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    summaryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    summaryScroll->setMaximumHeight(4 * summary_->fontMetrics().lineSpacing() + 4);
    layout->addWidget(summaryScroll);
    pair_->setObjectName("diffStepPair");
    pair_->setRange(1, 1);
    pair_->setToolTip(tr("The step pair the timeline shows"));
    pairLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* timelineBar = new QHBoxLayout;
    timelineBar->addWidget(new QLabel(tr("Step pair:"), this));
    timelineBar->addWidget(pair_);
    timelineBar->addWidget(pairLabel_, 1);
    auto* timelineBox = new QWidget(this);
    auto* timelineLayout = new QVBoxLayout(timelineBox);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    timelineLayout->addLayout(timelineBar);
    // The step pair as the trace viewer shows it (every track, search, details), beside the
    // GPU-only step timeline.
    auto* views = new QTabWidget(this);
    views->setObjectName("diffStepViews");
    views->setDocumentMode(true);
    views->addTab(stacked_, tr("Stacked trace"));
    views->addTab(timeline_, tr("GPU step timeline"));
    timelineLayout->addWidget(views, 1);
    connect(stacked_, &StackedTraceView::finished, this, [this] { finishStep(); });
    auto* tableBox = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->setSpacing(0);
    tableLayout->addWidget(tables_);
    tableLayout->addWidget(table_, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(tableBox);
    splitter->addWidget(timelineBox);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    layout->addWidget(splitter, 1);
    table_->setRowActionText(tr("Highlight this op in the stacked trace and step timeline"));
    connect(table_, &DataTableView::rowActivated, this, [this](int row) {
        const Table& t = table_->table();
        const DiffBy by = tableKind();
        auto cell = [&](const char* column) {
            const int c = t.columnIndex(column);
            return c >= 0 && row >= 0 && size_t(row) < t.rowCount()
                       ? QString::fromStdString(t.text(size_t(row), size_t(c)))
                       : QString();
        };
        const QString name = cell(by == DiffBy::Kernel ? "Kernel" : "Operation");
        // The GPU step timeline lanes are device ops; the stacked trace links op, kernel and host
        // op rows, and a category row clears the link.
        if (by == DiffBy::Op && !name.isEmpty()) timeline_->setHighlight(name);
        stacked_->linkRow(by, by == DiffBy::Category ? QString() : name,
                          by == DiffBy::HostOp ? cell("Kind") : QString());
    });
    connect(pair_, &QSpinBox::valueChanged, this, [this](int v) { showStepPair(v - 1); });

    connect(chooseFile_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Compare With Profile File"), QString(),
            tr("Profiles (*.xplane.pb *.pb *.json *.json.gz);;All files (*)"));
        if (!path.isEmpty()) setCandidatePath(path);
    });
    connect(chooseFolder_, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getExistingDirectory(this, tr("Compare With Log Directory or Run Folder"));
        if (!path.isEmpty()) setCandidatePath(path);
    });
    connect(cancel_, &QPushButton::clicked, this, &RunDiffView::cancelCandidateLoad);
    connect(tables_, &QTabBar::currentChanged, this, [this] { showDiff(); });
    connect(pythonFunctions_, &QCheckBox::toggled, this, [this] { compare(); });
    connect(align_, &QComboBox::currentIndexChanged, this, [this] {
        shift_->setEnabled(StepAlignment(align_->currentData().toInt()) != StepAlignment::Auto);
        compare();
    });
    connect(shift_, &QSpinBox::valueChanged, this, [this] { compare(); });
    connect(hostMatching_, &QComboBox::currentIndexChanged, this, [this] { compare(); });
    connect(runBox_, &QComboBox::activated, this, [this](int run) { chooseCandidateRun(run, -1); });
    connect(hostBox_, &QComboBox::activated, this,
            [this](int index) { chooseCandidateRun(run_, hostBox_->itemData(index).toInt()); });
    fillCandidateSelectors();
    setProfile(nullptr);
}

RunDiffView::~RunDiffView() {
    cancelCandidateLoad();
}

QString RunDiffView::statusText() const {
    return status_->text();
}
QString RunDiffView::summaryText() const {
    return summary_->text();
}

void RunDiffView::setTableKind(DiffBy by) {
    for (int i = 0; i < tables_->count(); ++i)
        if (tables_->tabData(i).toInt() == int(by)) tables_->setCurrentIndex(i);
}

DiffBy RunDiffView::tableKind() const {
    return DiffBy(tables_->tabData(tables_->currentIndex()).toInt());
}

void RunDiffView::setAlignment(StepAlignment alignment, int shift) {
    const QSignalBlocker a(align_), s(shift_);
    align_->setCurrentIndex(align_->findData(int(alignment)));
    shift_->setValue(shift);
    shift_->setEnabled(alignment != StepAlignment::Auto);
    compare();
}

void RunDiffView::setHostMatching(HostMatching matching) {
    hostMatching_->setCurrentIndex(hostMatching_->findData(int(matching)));
}

void RunDiffView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    compare();
}

void RunDiffView::chooseCandidate() {
    chooseFile_->click();
}

void RunDiffView::cancelCandidateLoad() {
    ++loadId_;
    if (loadProgress_) loadProgress_->cancel();
    loadProgress_.reset();
    if (loading_) {
        loading_ = false;
        cancel_->setVisible(false);
        status_->setText(tr("Loading the candidate was cancelled."));
        finishStep();
    }
}

void RunDiffView::setCandidatePath(const QString& path) {
    startLoad(path, std::nullopt, 0, -1);
}

void RunDiffView::chooseCandidateRun(int run, int host) {
    if (discovery_.runs.empty() || run < 0 || size_t(run) >= discovery_.runs.size()) return;
    if (host >= int(discovery_.runs[size_t(run)].hosts.size())) host = -1;
    startLoad(candidatePath_, discovery_, run, host);
}

void RunDiffView::startLoad(const QString& path, std::optional<Discovery> known, int run,
                            int host) {
    cancelCandidateLoad();
    const uint64_t id = ++loadId_;
    auto progress = std::make_shared<Progress>();
    loadProgress_ = progress;
    loading_ = true;
    cancel_->setVisible(true);
    status_->setText(tr("Loading the candidate %1…").arg(QFileInfo(path).fileName()));
    auto* watcher = new QFutureWatcher<CandidateLoad>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, path, progress] {
        watcher->deleteLater();
        if (id != loadId_ || progress->cancelled()) return;
        loading_ = false;
        cancel_->setVisible(false);
        loadProgress_.reset();
        const CandidateLoad load = watcher->result();
        if (!load.result.ok()) {
            // The candidate before (if any) stays, with its selectors.
            status_->setText(tr("Could not load the candidate %1: %2")
                                 .arg(path, QString::fromStdString(load.result.error)));
            fillCandidateSelectors();
            finishStep();
            return;
        }
        candidate_ = load.result.profile;
        candidatePath_ = path;
        discovery_ = load.discovery;
        run_ = load.run;
        host_ = load.host;
        candidateLabel_->setText(QFileInfo(path).fileName());
        candidateLabel_->setToolTip(path);
        fillCandidateSelectors();
        compare();
    });
    // Discovery lists folders (possibly on a slow disk): it runs in the worker too.
    const std::string p = path.toStdString();
    watcher->setFuture(QtConcurrent::run([p, known = std::move(known), run, host,
                                          progress]() -> CandidateLoad {
        CandidateLoad load;
        load.run = run;
        load.host = host;
        try {
            load.discovery = known ? *known : discoverProfiles(p);
            if (!load.discovery.ok()) {
                load.result.error = load.discovery.error.empty() ? "no profiles found under " + p
                                                                 : load.discovery.error;
                return load;
            }
            const ProfileRun& r = load.discovery.runs[size_t(run)];
            std::vector<HostFile> hosts = r.hosts;
            if (host >= 0) hosts = {r.hosts[size_t(host)]};
            load.result = loadHosts(hosts, progress.get());
        } catch (const std::exception& e) {
            load.result = LoadResult();
            load.result.error = e.what();
        }
        return load;
    }));
}

void RunDiffView::fillCandidateSelectors() {
    const QSignalBlocker r(runBox_), h(hostBox_);
    runBox_->clear();
    hostBox_->clear();
    const bool have = candidate_ && !discovery_.runs.empty();
    runBox_->setEnabled(have);
    hostBox_->setEnabled(have);
    if (!have) return;
    for (const ProfileRun& run : discovery_.runs)
        runBox_->addItem(QString::fromStdString(run.name));
    runBox_->setCurrentIndex(run_);
    const ProfileRun& run = discovery_.runs[size_t(run_)];
    hostBox_->addItem(tr("All hosts (%1)").arg(run.hosts.size()), -1);
    for (size_t i = 0; i < run.hosts.size(); ++i)
        hostBox_->addItem(QString::fromStdString(run.hosts[i].host), int(i));
    hostBox_->setCurrentIndex(hostBox_->findData(host_));
}

void RunDiffView::showStepPair(int pair) {
    laneJob_.cancel();
    laying_ = false;
    if (!diff_ || diff_->wholeProfiles || pair < 0 || size_t(pair) >= diff_->pairing.pairs.size() ||
        !profile_ || !candidate_) {
        timeline_->setLanes(nullptr);
        stacked_->setStepPair(nullptr, nullptr, diff_, 0);
        pairLabel_->setText(diff_ && diff_->wholeProfiles ? tr("No steps: no step timeline.")
                                                          : QString());
        finishStep();
        return;
    }
    const auto [b, c] = diff_->pairing.pairs[size_t(pair)];
    const StepRecord baseStep = diff_->baseSteps.steps[b];
    const StepRecord candidateStep = diff_->candidateSteps.steps[c];
    pairLabel_->setText(tr("baseline step %1 (%2) and candidate step %3 (%4), aligned at their "
                           "starts; wheel zooms, drag pans, double-click an op row to highlight it")
                            .arg(baseStep.number)
                            .arg(QString::fromStdString(formatDuration(baseStep.durationPs)))
                            .arg(candidateStep.number)
                            .arg(QString::fromStdString(formatDuration(candidateStep.durationPs))));
    stacked_->setStepPair(profile_, candidate_, diff_, size_t(pair));
    laying_ = true;
    const std::shared_ptr<const Profile> candidate = candidate_;
    laneJob_.start(
        profile_,
        [candidate, baseStep, candidateStep](const Profile& base, const Progress*) {
            return collectStepLanes(base, baseStep, *candidate, candidateStep);
        },
        [this](std::shared_ptr<const StepLanes> lanes) {
            laying_ = false;
            timeline_->setLanes(std::move(lanes));
            finishStep();
        },
        [this](const QString& message) {
            laying_ = false;
            pairLabel_->setText(tr("Could not lay out the step: %1").arg(message));
            finishStep();
        });
}

void RunDiffView::compare() {
    if (diff_) emit comparisonChanged(nullptr, QString());
    diff_.reset();
    laneJob_.cancel();
    laying_ = false;
    timeline_->setLanes(nullptr);
    stacked_->clear(QString());
    if (!profile_ || !candidate_) {
        job_.cancel();
        computing_ = false;
        if (!loading_) {
            candidateLabel_->setText(tr("none yet"));
            status_->setText(profile_ ? tr("The profile on screen is the baseline. Choose a "
                                           "candidate run to compare it with (File > Compare "
                                           "with…).")
                                      : tr("No profile loaded."));
        }
        showDiff();
        finishStep();
        return;
    }
    RunDiffOptions options;
    options.alignment = StepAlignment(align_->currentData().toInt());
    if (options.alignment != StepAlignment::Auto) options.shift = shift_->value();
    options.hosts = HostMatching(hostMatching_->currentData().toInt());
    options.pythonFunctions = pythonFunctions_->isChecked();
    computing_ = true;
    status_->setText(tr("Comparing…"));
    showDiff();
    const std::shared_ptr<const Profile> candidate = candidate_;
    job_.start(
        profile_,
        [candidate, options](const Profile& base, const Progress* progress) {
            return diffRuns(base, *candidate, options, progress);
        },
        [this](std::shared_ptr<const RunDiff> diff) {
            computing_ = false;
            diff_ = std::move(diff);
            emit comparisonChanged(diff_, candidateLabel_->text());
            showDiff();
            {
                const QSignalBlocker b(pair_);
                pair_->setRange(1, std::max(1, int(diff_->pairing.pairs.size())));
                pair_->setValue(1);
            }
            showStepPair(0);
        },
        [this](const QString& message) {
            computing_ = false;
            status_->setText(tr("Could not compare the runs: %1").arg(message));
            finishStep();
        });
}

void RunDiffView::showDiff() {
    if (!diff_) {
        table_->setTable(Table());
        summary_->clear();
        return;
    }
    const DiffBy by = tableKind();
    // The host-op table's many columns would squeeze the names: its columns up to the self times
    // are fitted to the view, the rest scroll in.
    table_->setLeadingColumns(by == DiffBy::HostOp
                                  ? QStringList{"Host", "Kind", "Operation", "Class", "Evidence",
                                                "Baseline calls", "Candidate calls",
                                                "Baseline total (µs)", "Candidate total (µs)",
                                                "Baseline self (µs)", "Candidate self (µs)"}
                                  : QStringList());
    table_->setTable(runDiffTable(*diff_, by));
    table_->setExportFileName(by == DiffBy::Category ? "run_diff_steps.csv"
                              : by == DiffBy::Op     ? "run_diff_ops.csv"
                              : by == DiffBy::Kernel ? "run_diff_kernels.csv"
                                                     : "run_diff_host_ops.csv");
    const size_t pairs = diff_->pairing.pairs.size();
    QString status =
        (diff_->hostExplanation.empty() ? QString()
                                        : QString::fromStdString(diff_->hostExplanation) + " ") +
        QString::fromStdString(diff_->pairing.explanation) + " " +
        (pairs == 1 ? tr("1 step pair compared") : tr("%1 step pairs compared").arg(pairs));
    if (pairs >= 2)
        status += tr("; per-step shifts with their %1% interval (Mann-Whitney / Hodges-Lehmann), "
                     "changes under %2% count as unchanged.")
                      .arg(100 * diff_->confidence)
                      .arg(diff_->minChangePercent);
    else
        status += tr("; one step each: no noise estimate is possible.");
    if (diff_->torchCategories)
        status += tr(" Step breakdown: the PyTorch TensorBoard plugin's categories.");
    status_->setText(status);
    QStringList lines;
    for (const std::string& s : runDiffSummary(*diff_)) lines << QString::fromStdString(s);
    summary_->setText(lines.isEmpty() ? tr("No change stands out of the step-to-step noise.")
                                      : tr("What changed:\n• ") + lines.join("\n• "));
}

void RunDiffView::finishStep() {
    if (isReady()) emit ready();
}

} // namespace stepscope
