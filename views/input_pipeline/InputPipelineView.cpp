#include "views/input_pipeline/InputPipelineView.h"

#include <QLabel>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "views/overview/OverviewView.h"
#include "views/overview/StackedStepChart.h"
#include "widgets/DataTableView.h"

namespace stepscope {

namespace {
QString ms(double v) {
    return QString::number(v, 'f', 3) + " ms";
}
QString pct(double v) {
    return QString::number(v, 'f', 1) + "%";
}

} // namespace

InputPipelineView::InputPipelineView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , summary_(new QLabel(this))
    , chart_(new StackedStepChart(this))
    , tabs_(new QTabWidget(this))
    , ops_(new DataTableView(this))
    , breakdown_(new DataTableView(this))
    , steps_(new DataTableView(this))
    , job_(this, tr("input pipeline analysis"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take = [this](std::shared_ptr<const InputPipeline> r) { result_ = std::move(r); },
            .show = [this] { show(); }}) {
    status_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    ops_->setExportFileName("input_ops.csv");
    breakdown_->setExportFileName("input_host_breakdown.csv");
    steps_->setExportFileName("input_steps.csv");
    steps_->tableView()->setToolTip(tr("Double-click a step to open it in the trace viewer"));

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(summary_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(380);

    auto* upper = new QSplitter(Qt::Horizontal, this);
    upper->addWidget(scroll);
    upper->addWidget(chart_);
    upper->setStretchFactor(0, 2);
    upper->setStretchFactor(1, 3);
    upper->setChildrenCollapsible(false);

    tabs_->addTab(ops_, tr("Input ops (host)"));
    tabs_->addTab(breakdown_, tr("Host input time"));
    tabs_->addTab(steps_, tr("Steps"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(upper);
    split->addWidget(tabs_);
    split->setChildrenCollapsible(false);
    split->setSizes({560, 360});

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(split, 1);

    auto open = [this](int i) {
        if (!result_ || i < 0 || size_t(i) >= result_->steps.steps.size()) return;
        const StepRecord& s = result_->steps.steps[size_t(i)];
        emit showRangeRequested(s.beginPs, s.beginPs + s.durationPs);
    };
    connect(chart_, &StackedStepChart::stepClicked, this, open);
    connect(steps_, &DataTableView::rowActivated, this, open);
    setProfile(nullptr);
}

void InputPipelineView::showEvent(QShowEvent* event) {
    ToolView::showEvent(event);
    // The page is kept while the user goes to the overview and enters or clears a step pattern.
    if (profile_ && OverviewView::rememberedStepPattern(*profile_) != pattern_)
        setProfile(profile_);
}

void InputPipelineView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    if (profile_) pattern_ = OverviewView::rememberedStepPattern(*profile_);
    const std::string pattern = pattern_.toStdString();
    job_.run(profile_, tr("Analyzing the input pipeline…"),
             [pattern](const Profile& p, const Progress* progress) {
                 return computeInputPipeline(p, pattern, progress);
             });
}

QString InputPipelineView::summaryText() const {
    QString text = summary_->text();
    text.replace("</tr>", "\n").replace("</td>", ": ").replace("</p>", "\n");
    text.remove(QRegularExpression("<[^>]*>"));
    return text;
}

void InputPipelineView::show() {
    const InputPipeline* r = result_.get();
    if (!r) {
        summary_->clear();
        chart_->clear();
        for (DataTableView* t : {ops_, breakdown_, steps_}) t->setTable(Table());
        return;
    }
    const StepAnalysis& st = r->steps;
    status_->setText(
        st.steps.empty()
            ? tr("<b>No steps found</b>, so the device side is empty: find steps by name on the "
                 "Overview page. The host side below does not need steps.")
            : tr("%n step(s), from %1", nullptr, int(st.steps.size()))
                  .arg(QString::fromStdString(std::string(stepSourceName(st.source)))));
    QString html = tr("<b>Summary</b><p>%1</p>")
                       .arg(QString::fromStdString(r->bottleneck.inputStatement).toHtmlEscaped());
    html += tr("<b>Device side</b><table cellspacing=2>");
    auto row = [&html](const QString& name, const QString& value) {
        html +=
            QString("<tr><td nowrap>%1</td><td nowrap align=right>%2</td></tr>").arg(name, value);
    };
    if (!st.steps.empty()) {
        row(tr("Step time average"), ms(r->stepTimeMs.average));
        // One step has no spread: left empty, not shown as 0.
        row(tr("Standard deviation"),
            r->stepTimeMs.count >= 2 ? ms(r->stepTimeMs.stddev) : QString());
        row(tr("Minimum / maximum"), ms(r->stepTimeMs.minimum) + " / " + ms(r->stepTimeMs.maximum));
        row(tr("Input share of step time"), pct(r->bottleneck.inputPercent));
        row(tr("Input share per step (min / max)"),
            pct(r->inputPercent.minimum) + " / " + pct(r->inputPercent.maximum));
    }
    html += "</table>";
    html += tr("<b>Host side</b>");
    if (r->ops.empty())
        html += tr("<p>No input ops (tf.data iterators, host-to-device copies, input-pipeline "
                   "stages) on the host threads.</p>");
    else
        html += tr("<p>%n input op(s); %1 ms of input op self time. %2</p>", nullptr,
                   int(r->ops.size()))
                    .arg(double(r->inputOpSelfPs) / 1e9, 0, 'f', 3)
                    .arg(r->tfDataUsed ? tr("tf.data is in use.") : QString());
    summary_->setText(html);

    QStringList labels, hover;
    std::vector<StackedStepChart::Series> series = {
        {tr("Waiting for input"), QColor("#d62728"), {}},
        {tr("Host to device"), QColor("#ff9896"), {}},
        {tr("Other"), QColor("#1f77b4"), {}}};
    const bool hosts = r->hosts.size() > 1; // each host has its own steps
    for (const StepRecord& s : st.steps) {
        labels << (hosts ? QString("%1/h%2").arg(s.number).arg(s.host) : QString::number(s.number));
        const double wait = double(s.hostWaitInputPs) / 1e9, h2d = double(s.hostToDevicePs) / 1e9;
        const double other = double(s.durationPs - s.ps(StepCategory::Input)) / 1e9;
        series[0].values.push_back(wait);
        series[1].values.push_back(h2d);
        series[2].values.push_back(other);
        hover << tr("Step %1: %2\nWaiting for input %3\nHost to device %4\nOther %5\nClick to "
                    "open the step in the trace viewer")
                     .arg(s.number)
                     .arg(ms(double(s.durationPs) / 1e9), ms(wait), ms(h2d), ms(other));
    }
    chart_->setData(labels, series, hover, tr("Step time (ms)"));
    ops_->setTable(inputOpTable(*r));
    breakdown_->setTable(inputBreakdownTable(*r));
    steps_->setTable(inputStepTable(*r));
}

} // namespace stepscope
