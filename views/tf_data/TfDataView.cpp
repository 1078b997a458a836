#include "views/tf_data/TfDataView.h"

#include <algorithm>

#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "views/tf_data/TfDataGraph.h"
#include "widgets/DataTableView.h"

namespace stepscope {

namespace {
QString html(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}
QString us(int64_t ps) {
    return QString::number(double(ps) / 1e6, 'f', 1) + " µs";
}
} // namespace

TfDataView::TfDataView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , summary_(new QLabel(this))
    , pipelines_(new DataTableView(this))
    , tabs_(new QTabWidget(this))
    , graph_(new TfDataGraph(this))
    , iterators_(new DataTableView(this))
    , job_(this, tr("tf.data bottleneck analysis"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take = [this](std::shared_ptr<const TfDataAnalysis> r) { analysis_ = std::move(r); },
            .show = [this] { showAnalysis(); }}) {
    status_->setWordWrap(true);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pipelines_->setExportFileName("tf_data_pipelines.csv");
    iterators_->setExportFileName("tf_data_slowest_execution.csv");
    pipelines_->tableView()->setToolTip(
        tr("Pick a pipeline to draw its slowest execution; double-click to show it in the trace "
           "viewer"));
    tabs_->addTab(graph_, tr("Slowest execution: iterator graph"));
    tabs_->addTab(iterators_, tr("Slowest execution: iterators"));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(pipelines_);
    splitter->addWidget(tabs_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(summary_);
    layout->addWidget(splitter, 1);

    connect(pipelines_->tableView(), &QTableView::clicked, this, [this](const QModelIndex& i) {
        const std::vector<size_t> rows = pipelines_->visibleRows();
        if (i.isValid() && size_t(i.row()) < rows.size())
            selectPipeline(int(rows[size_t(i.row())]));
    });
    connect(pipelines_, &DataTableView::rowActivated, this, [this](int row) {
        if (!analysis_ || row < 0 || size_t(row) >= analysis_->analysis.size()) return;
        const TfDataPipeline& p = analysis_->pipelines[analysis_->analysis[size_t(row)].pipeline];
        emit showEventRequested(p.executions.front().root);
    });
    setProfile(nullptr);
}

void TfDataView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(profile_, tr("Rebuilding the input pipelines…"),
             [](const Profile& p, const Progress* progress) {
                 return computeTfDataBottleneck(p, progress);
             });
}

void TfDataView::showAnalysis() {
    pipelines_->setTable(analysis_ ? tfDataPipelineTable(*analysis_) : Table());
    // Up to four pipelines in view in a small window (at 1024x640 two of BERT's four showed).
    pipelines_->setMinimumHeight(
        pipelines_->heightForRows(std::clamp(int(pipelines_->table().rowCount()), 2, 4)));
    if (!analysis_) {
        summary_->clear();
        graph_->setExecution(nullptr, nullptr, nullptr);
        iterators_->setTable(Table());
        return;
    }
    status_->setText(QString::fromStdString(analysis_->summary));
    if (analysis_->analysis.empty()) {
        summary_->clear();
        graph_->setExecution(nullptr, nullptr, nullptr);
        iterators_->setTable(Table());
        return;
    }
    const TfDataBottleneckRow& top = analysis_->analysis.front();
    const TfDataPipeline& p = analysis_->pipelines[top.pipeline];
    summary_->setText(
        tr("<b>%1</b><br>Slowest input pipeline: <b>%2</b> on host <b>%3</b>, latency %4 "
           "(executions: %5, slower than 50 µs: %6).<br>Bottleneck iterator: <b>%7</b> "
           "(<code>%8</code>), %9 of self time on the critical path.<br>Advice: %10<br><i>In the "
           "graph, bold boxes and edges are the critical path, the red box the bottleneck.</i>")
            .arg(analysis_->inputBound ? tr("Input bound: a tf.data pipeline is slower than 50 µs.")
                                       : tr("Not input bound by tf.data."))
            .arg(html(p.name), html(p.host), us(p.maxLatencyPs))
            .arg(p.executions.size())
            .arg(p.slowCalls)
            .arg(top.iteratorName.empty() ? tr("none") : html(top.iteratorName),
                 html(top.iteratorLongName), us(top.iteratorSelfPs), html(tfDataAdvice(top.kind))));
    selectPipeline(0);
}

void TfDataView::selectPipeline(int row) {
    if (!analysis_ || row < 0 || size_t(row) >= analysis_->analysis.size()) return;
    const TfDataPipeline& p = analysis_->pipelines[analysis_->analysis[size_t(row)].pipeline];
    const TfDataExecution& ex = p.executions.front();
    graph_->setExecution(analysis_.get(), &p, &ex);
    iterators_->setTable(tfDataExecutionTable(*analysis_, p, ex));
    tabs_->setTabText(0, tr("Slowest execution of %1 (%2): iterator graph")
                             .arg(QString::fromStdString(p.name), QString::fromStdString(p.host)));
}

} // namespace stepscope
