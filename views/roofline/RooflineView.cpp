#include "views/roofline/RooflineView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <set>
#include <tuple>

#include "model/NumberFormat.h"
#include "views/roofline/RooflineChart.h"
#include "views/roofline/StepSelector.h"
#include "widgets/DataTableView.h"

namespace stepscope {

RooflineView::RooflineView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , step_(new QComboBox(this))
    , chart_(new RooflineChart(this))
    , sources_(new QLabel(this))
    , table_(new DataTableView(this))
    , job_(this, tr("roofline"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take =
                [this](std::shared_ptr<const Roofline> r) {
                    roofline_ = std::move(r);
                    fillRooflineSteps(step_, roofline_.get());
                },
            .show = [this] { showStep(); }}) {
    status_->setWordWrap(true);
    sources_->setWordWrap(true);
    sources_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_->setExportFileName("roofline.csv");
    table_->addColumnFilter("Operation", tr("Operation"));
    table_->addColumnFilter("Program", tr("Program"));
    table_->setLeadingColumns(
        {"Program", "Category", "Operation", "Shape", "Occurrences", "Self time (µs)",
         "Self time (%)", "FLOP/s of roof (%)", "Bytes/s of roof (%)", "Bound by", "Precision",
         "FLOPs", "Bytes accessed", "FLOP/s", "Bytes/s", "Operational intensity (FLOP/byte)"});
    table_->setRowActionText(tr("Show longest instance in the trace viewer"));
    table_->tableView()->setToolTip(tr("Double-click a row to show the op's longest instance in "
                                       "the trace viewer"));
    step_->setObjectName("rooflineStep");
    step_->setToolTip(tr("The whole profile, or one step's ops"));

    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(new QLabel(tr("Step:"), this));
    top->addWidget(step_);

    auto* chartPane = new QWidget(this);
    auto* chartLayout = new QVBoxLayout(chartPane);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(chart_, 1);
    chartLayout->addWidget(sources_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(chartPane);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    connect(step_, &QComboBox::currentIndexChanged, this, [this] { showStep(); });
    connect(table_, &DataTableView::rowActivated, this, [this](int row) {
        if (row >= 0 && size_t(row) < shown_.longestOfRow.size() &&
            shown_.longestOfRow[size_t(row)] != kNoIndex)
            emit showEventRequested(shown_.longestOfRow[size_t(row)]);
    });
    connect(chart_, &RooflineChart::pointClicked, this, [this](int id) { selectRow(id); });
    connect(chart_, &RooflineChart::pointActivated, this, [this](int id) {
        if (id >= 0 && size_t(id) < shown_.longestOfRow.size() &&
            shown_.longestOfRow[size_t(id)] != kNoIndex)
            emit showEventRequested(shown_.longestOfRow[size_t(id)]);
    });
    connect(table_->tableView()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const std::vector<size_t> rows = table_->visibleRows();
                chart_->setSelected(current.isValid() && size_t(current.row()) < rows.size()
                                        ? int(rows[size_t(current.row())])
                                        : -1);
            });
    setProfile(nullptr);
}

bool RooflineView::showName(const QString& name) {
    table_->filterTo(QStringLiteral("Operation"), name);
    return true;
}

void RooflineView::setStep(int32_t step) {
    const int index = step_->findData(step);
    if (index >= 0) step_->setCurrentIndex(index);
}

void RooflineView::selectRow(int sourceRow) {
    const std::vector<size_t> rows = table_->visibleRows();
    for (size_t i = 0; i < rows.size(); ++i)
        if (int(rows[i]) == sourceRow) {
            table_->tableView()->selectRow(int(i));
            table_->tableView()->scrollTo(table_->tableView()->model()->index(int(i), 0));
            return;
        }
}

void RooflineView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(profile_, tr("Costing device ops…"), computeRoofline);
}

void RooflineView::showStep() {
    if (!roofline_) {
        shown_ = RooflineTable();
        table_->setTable(Table());
        chart_->setData({}, {});
        sources_->clear();
        return;
    }
    const Roofline& r = *roofline_;
    const int32_t step = step_->currentIndex() >= 0 ? step_->currentData().toInt() : -1;
    shown_ = rooflineTable(r, step);
    table_->setTable(shown_.table);

    std::vector<RooflineChart::Point> points;
    std::set<std::tuple<uint32_t, Precision, bool>> roofKeys;
    for (size_t row = 0; row < shown_.cellOfRow.size(); ++row) {
        if (shown_.cellOfRow[row] < 0) continue;
        const RooflineCell& cell = r.cells[size_t(shown_.cellOfRow[row])];
        const RooflineOp& op = r.ops[cell.op];
        const RooflineMetrics m = rooflineMetrics(r, cell);
        if (!m.intensity || !m.flopsPerSecond || *m.intensity <= 0 || *m.flopsPerSecond <= 0)
            continue;
        points.push_back({*m.intensity, *m.flopsPerSecond, op.precision, int(row),
                          QString::fromStdString(op.name)});
        if (m.computeRoof > 0) roofKeys.insert({op.device, op.precision, op.matrixUnits});
    }
    std::vector<RooflineChart::Roof> roofs;
    const bool severalDevices = r.devices.size() > 1;
    for (const auto& [device, precision, matrix] : roofKeys) {
        const DevicePeaks& d = r.devices[device];
        const double peak = d.flopsRoof(precision, matrix);
        const bool onMatrix = matrix && d.matrixFlops[size_t(precision)] > 0;
        QString label = QString("%1, %2: %3FLOP/s")
                            .arg(QString::fromUtf8(precisionName(precision).data()),
                                 onMatrix ? tr("Tensor Cores") : tr("vector units"),
                                 QString::fromStdString(formatSi(peak)));
        if (severalDevices) label = QString::fromStdString(d.device) + " " + label;
        roofs.push_back({label, precision, peak, d.memoryBytesPerSecond, onMatrix});
    }
    chart_->setData(std::move(points), std::move(roofs));

    QStringList sources;
    for (const DevicePeaks& d : r.devices)
        sources.push_back(QString::fromStdString(d.device + ": " + d.source));
    sources_->setText(sources.join('\n'));
    size_t ops = 0;
    for (int64_t c : shown_.cellOfRow) ops += c >= 0 ? 1 : 0;
    status_->setText(ops == 0 ? tr("This profile has no GPU ops to cost.")
                              : tr("%1 device ops; %2 with both FLOPs and bytes drawn. Latency: "
                                   "under 10% of both roofs.")
                                    .arg(ops)
                                    .arg(chart_->pointCount()));
}

} // namespace stepscope
