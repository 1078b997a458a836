#include "views/op_profile/OpProfileView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/op_profile/OpProfileModel.h"
#include "views/roofline/StepSelector.h"

namespace stepscope {

namespace {

// Sorts by the model's numbers (Qt::UserRole); unknown values (NaN) below every number.
class NumberSortProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& a, const QModelIndex& b) const override {
        const QVariant x = a.data(Qt::UserRole), y = b.data(Qt::UserRole);
        if (x.typeId() == QMetaType::Double && y.typeId() == QMetaType::Double) {
            const double u = x.toDouble(), v = y.toDouble();
            if (std::isnan(u) || std::isnan(v)) return std::isnan(u) && !std::isnan(v);
            return u < v;
        }
        return x.toString() < y.toString();
    }
};

} // namespace

OpProfileView::OpProfileView(QWidget* parent)
    : ToolView(parent)
    , status_(new QLabel(this))
    , grouping_(new QComboBox(this))
    , step_(new QComboBox(this))
    , model_(new OpProfileModel(this))
    , proxy_(new NumberSortProxy(this))
    , tree_(new QTreeView(this))
    , job_(this, tr("op profile"),
           {.status = [this](const QString& s) { status_->setText(s); },
            .take =
                [this](std::shared_ptr<const Roofline> r) {
                    roofline_ = std::move(r);
                    fillRooflineSteps(step_, roofline_.get());
                },
            .show = [this] { showTree(); }}) {
    status_->setWordWrap(true);
    grouping_->setObjectName("opProfileGrouping");
    grouping_->addItem(tr("Program, category, op"), int(OpProfileGrouping::ByProgram));
    grouping_->addItem(tr("Framework op path"), int(OpProfileGrouping::ByFrameworkOp));
    step_->setObjectName("opProfileStep");

    proxy_->setSourceModel(model_);
    tree_->setModel(proxy_);
    tree_->setSortingEnabled(true);
    tree_->sortByColumn(OpProfileModel::Time, Qt::DescendingOrder);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->header()->setStretchLastSection(false);
    for (int c = 1; c < OpProfileModel::ColumnCount; ++c)
        tree_->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    tree_->setToolTip(tr("Double-click a node to show its longest op instance in the trace "
                         "viewer"));

    auto* top = new QHBoxLayout;
    top->addWidget(status_, 1);
    top->addWidget(new QLabel(tr("Group by:"), this));
    top->addWidget(grouping_);
    top->addWidget(new QLabel(tr("Step:"), this));
    top->addWidget(step_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(tree_, 1);

    connect(grouping_, &QComboBox::currentIndexChanged, this, [this] { showTree(); });
    connect(step_, &QComboBox::currentIndexChanged, this, [this] { showTree(); });
    connect(tree_, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
        const uint32_t node = model_->nodeOf(proxy_->mapToSource(index));
        const EventIndex e = model_->tree().nodes.at(node).sum.longest;
        if (e != kNoIndex) emit showEventRequested(e);
    });
    setProfile(nullptr);
}

void OpProfileView::setGrouping(OpProfileGrouping grouping) {
    grouping_->setCurrentIndex(grouping_->findData(int(grouping)));
}

void OpProfileView::setProfile(std::shared_ptr<const Profile> profile) {
    profile_ = std::move(profile);
    job_.run(profile_, tr("Costing device ops…"), computeRoofline);
}

void OpProfileView::showTree() {
    if (!roofline_) {
        model_->setTree(nullptr, {});
        return;
    }
    const auto grouping = OpProfileGrouping(grouping_->currentData().toInt());
    const int32_t step = step_->currentIndex() >= 0 ? step_->currentData().toInt() : -1;
    model_->setTree(roofline_, opProfile(*roofline_, grouping, step));
    // Small trees open whole; large ones show their programs (or the paths' first parts).
    if (model_->tree().nodes.size() <= 200)
        tree_->expandAll();
    else
        for (int row = 0; row < proxy_->rowCount(); ++row) tree_->expand(proxy_->index(row, 0));
    // The names as wide as they need, up to a third of the view, so the numbers stay in sight.
    tree_->resizeColumnToContents(OpProfileModel::Name);
    tree_->setColumnWidth(OpProfileModel::Name,
                          std::min(tree_->columnWidth(OpProfileModel::Name),
                                   std::max(240, tree_->viewport()->width() / 3)));
    const OpProfileNode& root = model_->tree().nodes.at(0);
    status_->setText(root.children.empty()
                         ? tr("This profile has no GPU ops to cost.")
                         : tr("%1 µs of device time. Shares of the roofs: the time the work "
                              "would take at the device's peak for its precision (and at its "
                              "memory bandwidth) over the time it took; Latency: under 10% of "
                              "both.")
                               .arg(double(root.sum.timePs) / 1e6, 0, 'f', 1));
}

} // namespace stepscope
