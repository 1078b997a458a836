#include "views/kernel_stats/KernelStatsView.h"

#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/widgets/DataTableView.h"
#include "ui/widgets/PieChart.h"

namespace stepscope {

KernelStatsView::KernelStatsView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , pie_(new PieChart(this))
    , table_(new DataTableView(this)) {
    pie_->setTitle(tr("Kernel time by kernel name"));
    pie_->setMinimumHeight(260);
    table_->setExportFileName("kernel_stats.csv");
    table_->addColumnFilter("Kernel name", tr("Kernel name"));
    table_->addColumnFilter("Op name", tr("Op name"));
    table_->setRowActionText(tr("Show longest instance in the trace viewer"));
    table_->tableView()->setToolTip(tr("Double-click a row to show its longest instance in the "
                                       "trace viewer"));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(pie_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(splitter, 1);

    connect(table_, &DataTableView::rowActivated, this, [this](int row) {
        if (stats_ && row >= 0 && size_t(row) < stats_->longestInstance.size())
            emit showEventRequested(stats_->longestInstance[size_t(row)]);
    });
    setProfile(nullptr);
}

bool KernelStatsView::showName(const QString& name) {
    table_->filterTo(QStringLiteral("Kernel name"), name);
    return true;
}

void KernelStatsView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    stats_.reset();
    if (!profile_) {
        job_.cancel();
        status_->setText(tr("No profile loaded."));
        showStats();
        ready_ = true;
        emit ready();
        return;
    }
    ready_ = false;
    status_->setText(tr("Computing kernel stats…"));
    showStats();
    job_.start(
        profile_, computeKernelStats,
        [this](std::shared_ptr<const KernelStats> stats) {
            stats_ = std::move(stats);
            showStats();
            ready_ = true;
            emit ready();
        },
        [this](const QString& message) {
            status_->setText(tr("Could not compute the %1: %2").arg(tr("kernel stats"), message));
            ready_ = true;
            emit ready();
        });
}

void KernelStatsView::showStats() {
    if (!stats_) {
        table_->setTable(Table());
        pie_->clear();
        return;
    }
    table_->setTable(stats_->table);
    const PieData data = kernelTimeByName(*stats_);
    pie_->setSlices(data, QStringLiteral("µs"));
    status_->setText(data.empty() ? tr("This profile has no GPU kernels with launch details.")
                                  : tr("%1 kernel launches in %2 rows (kernel, op, launch "
                                       "configuration), sorted by total time.")
                                        .arg(stats_->kernelEvents)
                                        .arg(stats_->table.rowCount()));
}

} // namespace stepscope
