#include "views/tf_stats/TfStatsView.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/DataTableView.h"
#include "widgets/PieChart.h"

namespace stepscope {

namespace {
struct PieSpec {
    OpSide side;
    OpGrouping grouping;
    const char* title;
};
constexpr PieSpec kPies[4] = {
    {OpSide::Device, OpGrouping::ByOp, "Device self-time by op"},
    {OpSide::Device, OpGrouping::ByType, "Device self-time by op type"},
    {OpSide::Host, OpGrouping::ByOp, "Host self-time by op"},
    {OpSide::Host, OpGrouping::ByType, "Host self-time by op type"},
};
} // namespace

TfStatsView::TfStatsView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , includeIdle_(new QCheckBox(tr("Include idle time"), this))
    , pieRow_(new QWidget(this))
    , table_(new DataTableView(this))
    , job_(this, tr("op stats"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take = [this](std::shared_ptr<const TfOpStats> r) { stats_ = std::move(r); },
            .show = [this] { showStats(); }}) {
    includeIdle_->setToolTip(tr("Count idle time as an \"IDLE\" op in the table, the pies and "
                                "the percentages"));
    table_->setExportFileName("tf_stats.csv");

    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(includeIdle_);

    // The row's width follows the window; arrangePies() puts the pies side by side or in tabs
    // to fit it, so their minimum widths must not hold the window wide.
    pieRow_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* pieRowLayout = new QVBoxLayout(pieRow_);
    pieRowLayout->setContentsMargins(0, 0, 0, 0);
    pieSideBySide_ = new QWidget(pieRow_);
    pieGrid_ = new QGridLayout(pieSideBySide_);
    pieGrid_->setContentsMargins(0, 0, 0, 0);
    pieTabs_ = new QTabWidget(pieRow_);
    pieTabs_->setDocumentMode(true);
    pieRowLayout->addWidget(pieSideBySide_);
    pieRowLayout->addWidget(pieTabs_);
    for (size_t i = 0; i < pies_.size(); ++i) {
        pies_[i] = new PieChart(pieSideBySide_);
        pies_[i]->setTitle(tr(kPies[i].title));
    }

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(pieRow_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    connect(includeIdle_, &QCheckBox::toggled, this, [this] { showStats(); });
    table_->setRowActionText(tr("Show longest instance in the trace viewer"));
    table_->tableView()->setToolTip(tr("Double-click a row to show the op's longest instance in "
                                       "the trace viewer"));
    connect(table_, &DataTableView::rowActivated, this, [this](int row) {
        if (!stats_) return;
        const Table& t = table_->table();
        const int side = t.columnIndex("Host/device"), type = t.columnIndex("Type"),
                  op = t.columnIndex("Operation");
        if (row < 0 || size_t(row) >= t.rowCount() || side < 0 || type < 0 || op < 0) return;
        const TfOpStatsRow* r = findTfOpStatsRow(
            *stats_, t.text(size_t(row), size_t(side)) == "Host" ? OpSide::Host : OpSide::Device,
            t.text(size_t(row), size_t(type)), t.text(size_t(row), size_t(op)));
        if (r && r->longest != kNoIndex) emit showEventRequested(r->longest);
    });
    setProfile(nullptr);
}

bool TfStatsView::showName(const QString& name) {
    table_->filterTo(QStringLiteral("Operation"), name);
    return true;
}

void TfStatsView::setIncludeIdle(bool include) {
    includeIdle_->setChecked(include);
}

void TfStatsView::resizeEvent(QResizeEvent* e) {
    ToolView::resizeEvent(e);
    arrangePies();
}

void TfStatsView::arrangePies() {
    // In one row while each pie gets kPieWidth (its legend needs the room to tell "aten::…"
    // names apart); else in two rows where the window is tall enough to leave the table
    // kTableRoom; else one pie at a time in tabs, each as wide as the window.
    constexpr int kPieWidth = 420, kTableRoom = 300;
    std::vector<size_t> shown;
    for (size_t i = 0; i < pies_.size(); ++i)
        if (hasData_[i]) shown.push_back(i);
    const int count = int(shown.size());
    int columns = count;
    if (count > 1 && width() < count * kPieWidth) {
        columns = (count + 1) / 2;
        const bool twoRows = columns > 1 && width() >= columns * kPieWidth &&
                             height() >= 2 * pies_[0]->minimumHeight() + kTableRoom;
        if (!twoRows) columns = 0;
    }
    const bool tabs = columns == 0;
    const QSignalBlocker block(pieTabs_);
    while (pieTabs_->count() > 0) pieTabs_->removeTab(0);
    for (PieChart* pie : pies_) {
        pieGrid_->removeWidget(pie);
        pie->setParent(pieSideBySide_);
        pie->hide();
    }
    for (int k = 0; k < count; ++k) {
        PieChart* pie = pies_[shown[size_t(k)]];
        if (tabs) {
            pieTabs_->addTab(pie, tr(kPies[shown[size_t(k)]].title));
        } else {
            pieGrid_->addWidget(pie, k / columns, k % columns);
            pie->show();
        }
    }
    const int rows = tabs || count == 0 ? 1 : (count + columns - 1) / columns;
    pieTabs_->setVisible(tabs);
    pieSideBySide_->setVisible(!tabs);
    pieRow_->setVisible(!shown.empty());
    pieRow_->setMinimumHeight(shown.empty()
                                  ? 0
                                  : rows * pies_[0]->minimumHeight() +
                                        (tabs ? pieTabs_->tabBar()->sizeHint().height() : 0));
}

int TfStatsView::visiblePieCount() const {
    return int(std::count(hasData_.begin(), hasData_.end(), true));
}

bool TfStatsView::piesInTabs() const {
    return !pieTabs_->isHidden();
}

void TfStatsView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(profile_, tr("Computing op stats…"), [](const Profile& p, const Progress* progress) {
        return computeTfOpStats(p, progress);
    });
}

void TfStatsView::showStats() {
    const bool idle = includeIdle_->isChecked();
    if (!stats_) {
        table_->setTable(Table());
        hasData_.fill(false);
        arrangePies();
        return;
    }
    const TfOpStats& s = *stats_;
    table_->setTable(tfOpStatsTable(s, idle));
    int shown = 0;
    for (size_t i = 0; i < pies_.size(); ++i) {
        // By op: the top ops, the rest folded by type (tfOpStatsTopOpsPie), drawn as they come.
        const PieData data = kPies[i].grouping == OpGrouping::ByOp
                                 ? tfOpStatsTopOpsPie(s, kPies[i].side, idle)
                                 : tfOpStatsPie(s, kPies[i].side, kPies[i].grouping, idle);
        pies_[i]->setSlices(data, QStringLiteral("µs"),
                            kPies[i].grouping == OpGrouping::ByOp ? int(data.size()) : 7);
        hasData_[i] = !data.empty();
        shown += data.empty() ? 0 : 1;
    }
    arrangePies();
    size_t hostOps = 0, deviceOps = 0;
    for (const TfOpStatsRow& r : s.rows) (r.side == OpSide::Host ? hostOps : deviceOps)++;
    status_->setText(shown ? tr("%1 device ops, %2 host ops. Percentages are of each side's "
                                "total self-time.")
                                 .arg(deviceOps)
                                 .arg(hostOps)
                           : tr("This profile has no framework ops."));
}

} // namespace stepscope
