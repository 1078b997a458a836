#include "views/kernel_stats/KernelStatsView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/DataTableView.h"
#include "widgets/PieChart.h"

namespace stepscope {

KernelStatsView::KernelStatsView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , pie_(new PieChart(this))
    , table_(new DataTableView(this))
    , job_(this, tr("kernel stats"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take = [this](std::shared_ptr<const KernelStats> r) { stats_ = std::move(r); },
            .show = [this] { showStats(); }}) {
    pie_->setTitle(tr("Kernel time by kernel name"));
    pie_->setMinimumHeight(260);
    table_->setExportFileName("kernel_stats.csv");
    table_->addColumnFilter("Kernel name", tr("Kernel name"));
    table_->addColumnFilter("Op name", tr("Op name"));
    // What a user comes for first: names, then counts, total time, Tensor Core use and
    // precision, then the other times; the launch geometry follows (XProf's order puts it and the
    // Tensor Core columns between the names, so at 1280 px the times were off-screen). The CSV
    // keeps XProf's order.
    table_->setLeadingColumns({"Rank", "Kernel name", "Op name", "Occurrences",
                               "Total duration (µs)", kKernelUsesTensorCoreColumn, kPrecisionColumn,
                               "Avg duration (µs)", "Min duration (µs)", "Max duration (µs)"});
    table_->setRowActionText(tr("Show longest instance in the trace viewer"));
    table_->tableView()->setToolTip(tr("Double-click a row to show its longest instance in the "
                                       "trace viewer"));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(pie_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setChildrenCollapsible(false);

    groupBy_ = new QComboBox(this);
    groupBy_->setObjectName("kernelGroupBy");
    groupBy_->addItem(tr("Kernel"), int(KernelGrouping::Kernel));
    groupBy_->addItem(tr("Kernel and op"), int(KernelGrouping::KernelOp));
    groupBy_->addItem(tr("Kernel, op, launch configuration (XProf)"),
                      int(KernelGrouping::KernelOpConfiguration));
    groupBy_->setCurrentIndex(2);
    groupBy_->setToolTip(tr("Coarser groups bring up the kernels that take the time when one "
                            "kernel runs with many launch configurations"));
    auto* top = new QHBoxLayout;
    status_->setWordWrap(true);
    top->addWidget(status_, 1);
    top->addWidget(new QLabel(tr("Group by:"), this));
    top->addWidget(groupBy_);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    connect(groupBy_, &QComboBox::currentIndexChanged, this, [this] { showStats(); });
    connect(table_, &DataTableView::rowActivated, this, [this](int row) {
        if (row >= 0 && size_t(row) < shown_.longestInstance.size() &&
            shown_.longestInstance[size_t(row)] != kNoIndex)
            emit showEventRequested(shown_.longestInstance[size_t(row)]);
    });
    setProfile(nullptr);
}

void KernelStatsView::setGrouping(KernelGrouping grouping) {
    groupBy_->setCurrentIndex(groupBy_->findData(int(grouping)));
}

bool KernelStatsView::showName(const QString& name) {
    table_->filterTo(QStringLiteral("Kernel name"), name);
    return true;
}

void KernelStatsView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(profile_, tr("Computing kernel stats…"), computeKernelStats);
}

void KernelStatsView::showStats() {
    if (!stats_) {
        shown_ = KernelStats();
        table_->setTable(Table());
        pie_->clear();
        return;
    }
    const auto grouping = KernelGrouping(groupBy_->currentData().toInt());
    shown_ = groupKernelStats(*stats_, grouping);
    table_->setTable(shown_.table);
    const PieData data = kernelTimeByName(*stats_);
    pie_->setSlices(data, QStringLiteral("µs"));
    status_->setText(data.empty() ? tr("This profile has no GPU kernels with launch details.")
                                  : tr("%1 kernel launches in %2 rows, sorted by total time.")
                                        .arg(stats_->kernelEvents)
                                        .arg(shown_.table.rowCount()));
}

} // namespace stepscope
