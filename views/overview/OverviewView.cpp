#include "views/overview/OverviewView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>

#include "model/analysis/RunDiff.h"
#include "model/analysis/RunDiffFindings.h"
#include "views/overview/StackedStepChart.h"
#include "widgets/DataTableView.h"

namespace stepscope {

namespace {

// One colour per category, stable across pages.
QColor categoryColor(StepCategory c) {
    switch (c) {
    case StepCategory::Compilation:
        return QColor("#8c564b");
    case StepCategory::Input:
        return QColor("#d62728");
    case StepCategory::Output:
        return QColor("#9467bd");
    case StepCategory::KernelLaunch:
        return QColor("#ffbb33");
    case StepCategory::HostCompute:
        return QColor("#e377c2");
    case StepCategory::DeviceCollectives:
        return QColor("#17becf");
    case StepCategory::DeviceToDevice:
        return QColor("#bcbd22");
    case StepCategory::DeviceCompute16:
        return QColor("#2ca02c");
    case StepCategory::DeviceCompute32:
        return QColor("#1f77b4");
    case StepCategory::AllOthers:
        return QColor("#a0a0a0");
    }
    return Qt::gray;
}

// The PyTorch plugin's categories: device work in the XProf page's device colours, host
// categories in its host ones.
QColor torchRoleColor(TorchRole r) {
    switch (r) {
    case TorchRole::Kernel:
        return QColor("#1f77b4");
    case TorchRole::Memcpy:
        return QColor("#bcbd22");
    case TorchRole::Memset:
        return QColor("#8c564b");
    case TorchRole::Communication:
        return QColor("#17becf");
    case TorchRole::Runtime:
        return QColor("#ffbb33");
    case TorchRole::DataLoader:
        return QColor("#d62728");
    case TorchRole::CpuOp:
        return QColor("#e377c2");
    case TorchRole::Other:
        return QColor("#a0a0a0");
    }
    return Qt::gray;
}

QString ms(double v) {
    return QString::number(v, 'f', 3) + " ms";
}
QString pct(double v) {
    return std::isnan(v) ? QObject::tr("n/a") : QString::number(v, 'f', 1) + "%";
}

// "bf16 72.8% · fp32 27.2%": kernel time by precision, largest first; empty without kernels.
QString precisionMix(const Overview& o) {
    const Table t = precisionTable(o);
    std::vector<size_t> rows(t.rowCount());
    for (size_t r = 0; r < rows.size(); ++r) rows[r] = r;
    std::stable_sort(rows.begin(), rows.end(),
                     [&](size_t a, size_t b) { return t.number(a, 2) > t.number(b, 2); });
    QStringList parts;
    for (size_t r : rows) parts << QString::fromStdString(t.text(r, 0)) + " " + pct(t.number(r, 2));
    return parts.join(QString::fromUtf8(" · "));
}

// The key under which a profile's step pattern is remembered: its files.
QString settingsKey(const Profile& p) {
    QStringList files;
    for (const Host& h : p.hosts())
        files << QString::fromStdString(h.sourcePath.empty() ? h.name : h.sourcePath);
    return "overview/stepPattern/" + files.join('|');
}

Table recommendationsTable(const std::vector<Recommendation>& recommendations) {
    Table t;
    t.addColumn("Level", Table::Type::Text);
    t.addColumn("Check", Table::Type::Text);
    t.addColumn("Finding", Table::Type::Text);
    t.addColumn("Value", Table::Type::Double, ColumnFormat::Plain,
                "The number the rule tested (a percentage unless the finding says otherwise)");
    t.addColumn("Evidence", Table::Type::Text, ColumnFormat::Plain,
                "Double-click the row to open it");
    t.addColumn("From (ms)", Table::Type::Double);
    t.addColumn("To (ms)", Table::Type::Double);
    for (const Recommendation& r : recommendations) {
        const bool range = r.endPs > r.beginPs;
        t.addRow({std::string(levelKey(r.level)), r.id, r.text, r.value,
                  std::string(toolKey(r.tool)), range ? double(r.beginPs) / 1e9 : Table::missing(),
                  range ? double(r.endPs) / 1e9 : Table::missing()});
    }
    return t;
}

Table environmentTable(const Overview& o) {
    Table t;
    t.addColumn("Device", Table::Type::Text);
    t.addColumn("Host", Table::Type::Text);
    t.addColumn("Vendor", Table::Type::Text);
    t.addColumn("Compute capability", Table::Type::Text);
    t.addColumn("SMs / CUs", Table::Type::Double);
    t.addColumn("Memory", Table::Type::Double, ColumnFormat::Bytes);
    t.addColumn("Clock (MHz)", Table::Type::Double);
    for (const DeviceEnvironment& d : o.devices) {
        const DeviceInfo& i = d.info;
        t.addRow({d.name, d.host, i.vendor,
                  i.computeCapMajor > 0
                      ? std::to_string(i.computeCapMajor) + "." + std::to_string(i.computeCapMinor)
                      : std::string(),
                  i.coreCount > 0 ? double(i.coreCount) : Table::missing(),
                  i.memoryBytes > 0 ? double(i.memoryBytes) : Table::missing(),
                  i.clockRateKHz > 0 ? double(i.clockRateKHz) / 1000 : Table::missing()});
    }
    return t;
}

} // namespace

OverviewView::OverviewView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , completeness_(new QLabel(this))
    , pattern_(new QLineEdit(this))
    , applyPattern_(new QPushButton(tr("Find steps"), this))
    , summary_(new QLabel(this))
    , chart_(new StackedStepChart(this))
    , gpuChart_(new StackedStepChart(this))
    , tabs_(new QTabWidget(this))
    , recommendations_(new DataTableView(this))
    , gpuTable_(new DataTableView(this))
    , topOps_(new DataTableView(this))
    , precision_(new DataTableView(this))
    , steps_(new DataTableView(this))
    , environment_(new DataTableView(this))
    , job_(this, tr("overview"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take = [this](std::shared_ptr<const Overview> o) { overview_ = std::move(o); },
            .show = [this] { show(); }}) {
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    completeness_->setWordWrap(true);
    completeness_->setStyleSheet("QLabel { background: #fde2e1; border: 1px solid #d08080; "
                                 "padding: 3px 6px; }");
    completeness_->hide();
    pattern_->setPlaceholderText(tr("step event name contains…"));
    pattern_->setToolTip(tr("Find steps as the events whose name contains this text (remembered "
                            "for this profile). Empty: the steps the profile records."));
    pattern_->setClearButtonEnabled(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    summary_->setWordWrap(true);

    recommendations_->setExportFileName("overview_recommendations.csv");
    recommendations_->tableView()->setToolTip(tr("Double-click a row to open its evidence"));
    gpuTable_->setExportFileName("overview_gpu_time.csv");
    topOps_->setExportFileName("overview_top_ops.csv");
    precision_->setExportFileName("overview_precision.csv");
    steps_->setExportFileName("overview_steps.csv");
    steps_->tableView()->setToolTip(tr("Double-click a step to open it in the trace viewer"));
    environment_->setExportFileName("overview_environment.csv");

    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(new QLabel(tr("Steps by name:"), this));
    top->addWidget(pattern_);
    top->addWidget(applyPattern_);

    auto* summaryScroll = new QScrollArea(this);
    summaryScroll->setWidget(summary_);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    summaryScroll->setMinimumWidth(400);

    auto* upper = new QSplitter(Qt::Horizontal, this);
    upper->addWidget(summaryScroll);
    upper->addWidget(chart_);
    upper->setStretchFactor(0, 2);
    upper->setStretchFactor(1, 3);
    upper->setChildrenCollapsible(false);

    auto* gpuPage = new QWidget(this);
    auto* gpuLayout = new QVBoxLayout(gpuPage);
    gpuLayout->setContentsMargins(0, 0, 0, 0);
    auto* gpuSplit = new QSplitter(Qt::Vertical, gpuPage);
    gpuSplit->addWidget(gpuTable_);
    gpuSplit->addWidget(gpuChart_);
    gpuSplit->setChildrenCollapsible(false);
    gpuLayout->addWidget(gpuSplit);

    tabs_->addTab(recommendations_, tr("Recommendations"));
    tabs_->addTab(gpuPage, tr("GPU time"));
    tabs_->addTab(topOps_, tr("Top-10 device ops"));
    tabs_->addTab(precision_, tr("Precision"));
    tabs_->addTab(steps_, tr("Steps"));
    tabs_->addTab(environment_, tr("Run environment"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(upper);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({620, 300});
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(completeness_);
    layout->addWidget(split, 1);

    connect(applyPattern_, &QPushButton::clicked, this,
            [this] { applyStepPattern(pattern_->text().trimmed()); });
    connect(pattern_, &QLineEdit::returnPressed, this,
            [this] { applyStepPattern(pattern_->text().trimmed()); });
    auto openStep = [this](int i) {
        int64_t begin = 0, end = 0;
        if (stepRange(i, begin, end)) emit showRangeRequested(begin, end);
    };
    connect(chart_, &StackedStepChart::stepClicked, this, openStep);
    connect(steps_, &DataTableView::rowActivated, this, openStep);
    connect(recommendations_, &DataTableView::rowActivated, this,
            [this](int row) { openRecommendation(row); });
    setProfile(nullptr);
}

void OverviewView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    if (!profile_) {
        job_.run(nullptr, {}, {});
        return;
    }
    const QString remembered = rememberedStepPattern(*profile_);
    pattern_->setText(remembered);
    start(remembered);
}

QString OverviewView::rememberedStepPattern(const Profile& profile) {
    return QSettings().value(settingsKey(profile)).toString();
}

void OverviewView::applyStepPattern(const QString& pattern) {
    if (!profile_) return;
    QSettings settings;
    if (pattern.isEmpty())
        settings.remove(settingsKey(*profile_));
    else
        settings.setValue(settingsKey(*profile_), pattern);
    pattern_->setText(pattern);
    start(pattern);
}

void OverviewView::start(const QString& pattern) {
    const std::string p = pattern.toStdString();
    job_.run(profile_, tr("Computing the overview…"),
             [p](const Profile& profile, const Progress* progress) {
                 return computeOverview(profile, p, progress);
             });
}

QString OverviewView::summaryText() const {
    QString text = summary_->text();
    text.replace("<br>", "\n").replace("</tr>", "\n").replace("</td>", ": ");
    text.remove(QRegularExpression("<[^>]*>"));
    return text;
}

void OverviewView::show() {
    const Overview* o = overview_.get();
    if (!o) {
        summary_->clear();
        chart_->clear();
        gpuChart_->clear();
        completeness_->hide();
        for (DataTableView* t :
             {recommendations_, gpuTable_, topOps_, precision_, steps_, environment_})
            t->setTable(Table());
        return;
    }
    const StepAnalysis& st = o->steps;
    size_t torchSteps = 0;
    for (const TorchOverview& t : o->torch) torchSteps += t.steps.size();
    if (torchSteps > 0) {
        // Without ProfilerStep#N the plugin makes the whole trace (its host ops) one step.
        status_->setText(
            st.steps.empty()
                ? tr("No ProfilerStep#N: the whole trace is one step, in the PyTorch TensorBoard "
                     "plugin's categories")
                : tr("%n step(s), ProfilerStep#N, in the PyTorch TensorBoard plugin's categories",
                     nullptr, int(torchSteps)));
    } else if (st.steps.empty()) {
        status_->setText(
            st.source == StepSource::NamePattern
                ? tr("No event name contains \"%1\": no steps.")
                      .arg(QString::fromStdString(st.pattern))
                : tr("<b>No steps found.</b> This profile has no step markers (TensorFlow's "
                     "'Steps' line and group ids, step-marker TraceMe events, PyTorch's "
                     "ProfilerStep#N, XLA module launches). Type the name of the event that "
                     "marks one step on the right to find steps by name."));
    } else {
        status_->setText(
            tr("%n step(s), from %1", nullptr, int(st.steps.size()))
                .arg(QString::fromStdString(std::string(stepSourceName(st.source)))) +
            (st.notWellFormed
                 ? tr(" (%1 more without device compute left out, as XProf)").arg(st.notWellFormed)
                 : QString()));
    }
    if (o->completeness.empty()) {
        completeness_->hide();
    } else {
        QStringList lines;
        for (const std::string& c : o->completeness)
            lines << QString::fromStdString(c).toHtmlEscaped();
        completeness_->setText(tr("<b>The data may be incomplete:</b><br>") + lines.join("<br>"));
        completeness_->show();
    }

    // Performance summary.
    QString html = tr("<b>Performance summary</b><table cellspacing=2>");
    auto row = [&html](const QString& name, const QString& value, const QString& tip = {}) {
        html += QString("<tr><td nowrap title=\"%3\">%1</td><td nowrap align=right>%2</td></tr>")
                    .arg(name, value, tip.toHtmlEscaped());
    };
    if (torchSteps > 0) {
        showTorchSteps(html);
    } else if (!st.steps.empty()) {
        // One step has no spread: the deviation is left out, not shown as 0.
        row(tr("Average step time"),
            ms(o->stepTimeMs.average) + (o->stepTimeMs.count >= 2
                                             ? " ± " + QString::number(o->stepTimeMs.stddev, 'f', 3)
                                             : QString()),
            tr("Average and sample standard deviation (n - 1) over the steps"));
        row(tr("Minimum / maximum"), ms(o->stepTimeMs.minimum) + " / " + ms(o->stepTimeMs.maximum));
        double total = 0;
        for (const StepRecord& s : st.steps) total += double(s.durationPs);
        for (size_t c = 0; c < kStepCategoryCount; ++c) {
            double sum = 0;
            for (const StepRecord& s : st.steps) sum += double(s.categoryPs[c]);
            row("&nbsp;&nbsp;" +
                    QString::fromStdString(std::string(stepCategoryName(StepCategory(c)))),
                ms(o->categoryMs[c].average) + " (" + pct(total > 0 ? 100 * sum / total : 0) + ")");
        }
    }
    row(tr("Device compute in 16-bit"), pct(o->compute16Percent),
        tr("XProf's 16/32-bit split of device compute time in the steps, by each kernel's "
           "precision: bf16, fp16, fp8, int8 and fp4 count as 16-bit, the rest (fp32, tf32, "
           "unknown) as 32-bit"));
    if (const QString mix = precisionMix(*o); !mix.isEmpty())
        row(tr("Kernel time by precision"), mix,
            tr("Of all kernel time, by the narrowest type each kernel reads or writes (the "
               "Precision tab has the table)"));
    row(tr("Ops on host / device"), pct(o->hostOpPercent) + " / " + pct(o->deviceOpPercent),
        tr("Op placement, as XProf: share of op occurrences on each side"));
    if (!std::isnan(o->hostEagerPercent) || !std::isnan(o->deviceEagerPercent))
        row(tr("Eager op time, host / device"),
            pct(o->hostEagerPercent) + " / " + pct(o->deviceEagerPercent),
            tr("Of the time of op events that carry TensorFlow's is_eager stat, the share run "
               "eagerly"));
    html += "</table>";
    // XProf's input statement counts no DataLoader time: PyTorch profiles get the plugin's rule.
    if (torchSteps == 0 && !o->bottleneck.inputStatement.empty())
        html +=
            "<p>" + QString::fromStdString(o->bottleneck.inputStatement).toHtmlEscaped() + "</p>";
    if (o->recommendations.empty()) {
        html += tr("<p>No check fired.</p>");
    } else {
        html += tr("<p><b>Findings</b> (double-click one below to see its evidence):</p><ul>");
        for (const Recommendation& r : o->recommendations) {
            const char* color = r.level == Level::High       ? "#c00000"
                                : r.level == Level::Moderate ? "#a06000"
                                                             : "#505050";
            html += QString("<li><span style=\"color:%1\">[%2]</span> %3</li>")
                        .arg(color, QString::fromUtf8(levelKey(r.level)),
                             QString::fromStdString(r.text).toHtmlEscaped());
        }
        html += "</ul>";
    }
    if (!comparedWith_.isEmpty()) {
        html += tr("<p><b>Against this run</b>, the candidate %1 (Compare runs):</p>")
                    .arg(comparedWith_.toHtmlEscaped());
        if (comparison_.empty())
            html += "<p>" + comparisonNote_.toHtmlEscaped() + "</p>";
        else
            html += "<ul>";
        for (const Recommendation& r : comparison_)
            html += "<li>" + QString::fromStdString(r.text).toHtmlEscaped() + "</li>";
        if (!comparison_.empty()) html += "</ul>";
    }
    summary_->setText(html);

    // Step-time graph.
    QStringList labels, hover;
    std::vector<StackedStepChart::Series> series;
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        series.push_back({QString::fromStdString(std::string(stepCategoryName(StepCategory(c)))),
                          categoryColor(StepCategory(c)),
                          {}});
    const bool hosts = o->hostNames.size() > 1; // each host has its own steps
    for (const StepRecord& s : st.steps) {
        const QString host = hosts && s.host < o->hostNames.size()
                                 ? QString::fromStdString(o->hostNames[s.host])
                                 : QString();
        labels << (hosts ? QString("%1/h%2").arg(s.number).arg(s.host) : QString::number(s.number));
        QString tip = tr("Step %1 (%2): %3")
                          .arg(s.number)
                          .arg(QString::fromStdString(s.name), ms(double(s.durationPs) / 1e9));
        if (hosts) tip += tr("\nHost %1").arg(host);
        for (size_t c = 0; c < kStepCategoryCount; ++c) {
            const double v = double(s.categoryPs[c]) / 1e9;
            series[c].values.push_back(v);
            if (v > 0)
                tip += "\n" + series[c].name + ": " + ms(v) + " (" +
                       pct(100.0 * double(s.categoryPs[c]) / double(s.durationPs)) + ")";
        }
        tip += tr("\nClick to open the step in the trace viewer");
        hover << tip;
    }
    if (torchSteps == 0) {
        chart_->setData(labels, series, hover, tr("Step time (ms)"));
        chart_->setVisible(!st.steps.empty());
    }

    // GPU time: stacked bars per device that sum to its span.
    QStringList devices, gpuHover;
    std::vector<StackedStepChart::Series> gpu = {
        {tr("Computation"), QColor("#1f77b4"), {}},
        {tr("Collectives, exposed"), QColor("#17becf"), {}},
        {tr("Memcpy/memset, exposed"), QColor("#d62728"), {}},
        {tr("Idle"), QColor("#d0d0d0"), {}}};
    for (const GpuTimeRow& d : o->gpu.devices) {
        devices << QString::fromStdString(d.device);
        gpu[0].values.push_back(double(d.computePs) / 1e9);
        gpu[1].values.push_back(double(d.collectivesExposedPs) / 1e9);
        gpu[2].values.push_back(double(d.memoryOnlyPs) / 1e9);
        gpu[3].values.push_back(double(d.idlePs) / 1e9);
        gpuHover << tr("%1\nBusy %2 of %3 (%4)\nComputation %5\nCollectives %6 (exposed %7)\n"
                       "Memcpy/memset %8 (exposed %9)")
                        .arg(QString::fromStdString(d.device), ms(double(d.busyPs) / 1e9),
                             ms(double(d.spanPs()) / 1e9),
                             pct(100.0 * double(d.busyPs) /
                                 double(std::max<int64_t>(1, d.spanPs()))),
                             ms(double(d.computePs) / 1e9), ms(double(d.collectivesPs) / 1e9),
                             ms(double(d.collectivesExposedPs) / 1e9), ms(double(d.memoryPs) / 1e9),
                             ms(double(d.memoryExposedPs) / 1e9));
    }
    gpuChart_->setData(devices, gpu, gpuHover, tr("Time (ms)"), tr("Device"));

    std::vector<Recommendation> all = o->recommendations;
    all.insert(all.end(), comparison_.begin(), comparison_.end());
    recommendations_->setTable(recommendationsTable(all));
    gpuTable_->setTable(gpuTimeTable(o->gpu));
    topOps_->setTable(o->topOps);
    precision_->setTable(precisionTable(*o));
    steps_->setTable(overviewStepTable(*o));
    environment_->setTable(environmentTable(*o));
}

void OverviewView::setComparison(std::shared_ptr<const RunDiff> diff, const QString& candidate) {
    comparison_ = diff ? runDiffFindings(*diff) : std::vector<Recommendation>();
    comparedWith_ = diff ? candidate : QString();
    // With one step pair per host pair (or whole runs) there is no step-to-step noise.
    bool oneStepEach = false;
    if (diff) {
        oneStepEach = diff->wholeProfiles || diff->pairing.pairs.size() < 2;
        if (!diff->hostPairs.empty())
            oneStepEach |= std::all_of(diff->hostPairs.begin(), diff->hostPairs.end(),
                                       [](const HostPair& h) { return h.pairCount < 2; });
    }
    comparisonNote_ =
        !diff                         ? QString()
        : diff->pairing.pairs.empty() ? QString::fromStdString(diff->pairing.explanation)
        : oneStepEach
            ? tr("No change: with one step each no noise estimate is possible, and nothing moved "
                 "by %1% or more.")
                  .arg(diff->minChangePercent)
            : tr("No change stands out of the step-to-step noise.");
    if (overview_) show();
}

bool OverviewView::stepRange(int i, int64_t& begin, int64_t& end) const {
    if (!overview_ || i < 0) return false;
    size_t n = size_t(i);
    if (!overview_->torch.empty()) {
        for (const TorchOverview& t : overview_->torch) {
            if (n < t.steps.size()) {
                begin = t.steps[n].range.start;
                end = t.steps[n].range.end;
                return true;
            }
            n -= t.steps.size();
        }
        return false;
    }
    if (n >= overview_->steps.steps.size()) return false;
    const StepRecord& s = overview_->steps.steps[n];
    begin = s.beginPs;
    end = s.beginPs + s.durationPs;
    return true;
}

// PyTorch profiles: the summary's step rows and the step graph in the PyTorch TensorBoard
// plugin's categories (Overview::torch).
void OverviewView::showTorchSteps(QString& html) {
    const Overview& o = *overview_;
    auto row = [&html](const QString& name, const QString& value, const QString& tip = {}) {
        html += QString("<tr><td nowrap title=\"%3\">%1</td><td nowrap align=right>%2</td></tr>")
                    .arg(name, value, tip.toHtmlEscaped());
    };
    row(tr("Average step time"),
        ms(o.torchStepTimeMs.average) +
            (o.torchStepTimeMs.count >= 2
                 ? " ± " + QString::number(o.torchStepTimeMs.stddev, 'f', 3)
                 : QString()),
        tr("ProfilerStep#N extended to the device work it launched, as the PyTorch TensorBoard "
           "plugin; average and sample standard deviation (n - 1) over the steps"));
    row(tr("Minimum / maximum"),
        ms(o.torchStepTimeMs.minimum) + " / " + ms(o.torchStepTimeMs.maximum));
    double total = 0;
    std::array<double, kTorchRoleCount> sums{};
    for (const TorchOverview& t : o.torch)
        for (const TorchStepCosts& s : t.steps) {
            total += double(s.range.end - s.range.start);
            for (size_t r = 0; r < kTorchRoleCount; ++r) sums[r] += double(s.ps[r]);
        }
    for (size_t r = 0; r < kTorchRoleCount; ++r)
        row("&nbsp;&nbsp;" + QString::fromStdString(std::string(torchRoleName(TorchRole(r)))),
            ms(o.torchRoleMs[r].average) + " (" + pct(total > 0 ? 100 * sums[r] / total : 0) + ")",
            tr("Each instant of a step goes to the first of kernel, memcpy, memset, "
               "communication, runtime, dataloader, CPU exec that runs then, else to other (the "
               "plugin's overall_parser.py)"));

    QStringList labels, hover;
    std::vector<StackedStepChart::Series> series;
    for (size_t r = 0; r < kTorchRoleCount; ++r)
        series.push_back({QString::fromStdString(std::string(torchRoleName(TorchRole(r)))),
                          torchRoleColor(TorchRole(r)),
                          {}});
    const bool hosts = o.torch.size() > 1;
    for (const TorchOverview& t : o.torch)
        for (const TorchStepCosts& s : t.steps) {
            const double stepMs = double(s.range.end - s.range.start) / 1e9;
            const QString name = QString::fromStdString(s.name);
            labels << (hosts ? QString("%1/h%2").arg(name).arg(t.host) : name);
            QString tip = tr("Step %1: %2").arg(name, ms(stepMs));
            if (hosts && t.host < o.hostNames.size())
                tip += tr("\nHost %1").arg(QString::fromStdString(o.hostNames[t.host]));
            for (size_t r = 0; r < kTorchRoleCount; ++r) {
                const double v = double(s.ps[r]) / 1e9;
                series[r].values.push_back(v);
                if (v > 0)
                    tip += "\n" + series[r].name + ": " + ms(v) + " (" +
                           pct(stepMs > 0 ? 100.0 * v / stepMs : 0) + ")";
            }
            tip += tr("\nClick to open the step in the trace viewer");
            hover << tip;
        }
    chart_->setData(labels, series, hover, tr("Step time (ms)"));
    chart_->setVisible(true);
}

void OverviewView::openRecommendation(int row) {
    if (!overview_ || row < 0) return;
    const std::vector<Recommendation>& own = overview_->recommendations;
    if (size_t(row) >= own.size() + comparison_.size()) return;
    const Recommendation& r =
        size_t(row) < own.size() ? own[size_t(row)] : comparison_[size_t(row) - own.size()];
    if (r.tool == ToolId::TraceViewer)
        emit showRangeRequested(r.beginPs, r.endPs > r.beginPs ? r.endPs : profile_->durationPs());
    else
        emit showToolRequested(toolKeyText(r.tool));
}

} // namespace stepscope
