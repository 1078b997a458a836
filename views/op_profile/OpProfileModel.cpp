#include "views/op_profile/OpProfileModel.h"

#include <QColor>
#include <cmath>
#include <limits>

#include "model/NumberFormat.h"

namespace stepscope {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

const char* const kHeaders[OpProfileModel::ColumnCount] = {
    "Name",           "Time (µs)", "Time (%)",
    "FLOPs",          "FLOP/s",    "FLOP/s of roof (%)",
    "Bytes accessed", "Bytes/s",   "Bytes/s of roof (%)",
    "FLOP/byte",      "Bound by"};

} // namespace

OpProfileModel::OpProfileModel(QObject* parent)
    : QAbstractItemModel(parent) {}

void OpProfileModel::setTree(std::shared_ptr<const Roofline> roofline, OpProfile tree) {
    beginResetModel();
    roofline_ = std::move(roofline);
    tree_ = std::move(tree);
    parent_.assign(tree_.nodes.size(), 0);
    row_.assign(tree_.nodes.size(), 0);
    for (uint32_t n = 0; n < tree_.nodes.size(); ++n)
        for (size_t i = 0; i < tree_.nodes[n].children.size(); ++i) {
            parent_[tree_.nodes[n].children[i]] = n;
            row_[tree_.nodes[n].children[i]] = uint32_t(i);
        }
    endResetModel();
}

uint32_t OpProfileModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? uint32_t(index.internalId()) : 0;
}

QModelIndex OpProfileModel::index(int row, int column, const QModelIndex& parent) const {
    if (tree_.nodes.empty() || row < 0 || column < 0 || column >= ColumnCount) return {};
    const OpProfileNode& p = tree_.nodes[nodeOf(parent)];
    if (size_t(row) >= p.children.size()) return {};
    return createIndex(row, column, quintptr(p.children[size_t(row)]));
}

QModelIndex OpProfileModel::parent(const QModelIndex& child) const {
    const uint32_t node = nodeOf(child);
    if (node == 0) return {};
    const uint32_t p = parent_[node];
    if (p == 0) return {};
    return createIndex(int(row_[p]), 0, quintptr(p));
}

int OpProfileModel::rowCount(const QModelIndex& parent) const {
    if (tree_.nodes.empty() || (parent.isValid() && parent.column() != 0)) return 0;
    return int(tree_.nodes[nodeOf(parent)].children.size());
}

int OpProfileModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant OpProfileModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !roofline_) return {};
    const OpProfileNode& n = tree_.nodes[nodeOf(index)];
    const RooflineMetrics m = rooflineMetrics(n.sum);
    const double total = double(tree_.nodes[0].sum.timePs);
    const bool flops = n.sum.flopsKnown > 0, bytes = n.sum.bytesKnown > 0;
    const auto orNone = [](const std::optional<double>& v) { return v ? *v : kNone; };
    double value = kNone;
    switch (Column(index.column())) {
    case Name:
        break;
    case Time:
        value = double(n.sum.timePs) / 1e6;
        break;
    case TimeShare:
        value = total > 0 ? 100 * double(n.sum.timePs) / total : kNone;
        break;
    case Flops:
        value = flops ? n.sum.flops : kNone;
        break;
    case FlopsPerSecond:
        value = orNone(m.flopsPerSecond);
        break;
    case ComputeShare:
        value = m.computeShare ? *m.computeShare * 100 : kNone;
        break;
    case Bytes:
        value = bytes ? n.sum.bytes : kNone;
        break;
    case BytesPerSecond:
        value = orNone(m.bytesPerSecond);
        break;
    case MemoryShare:
        value = m.memoryShare ? *m.memoryShare * 100 : kNone;
        break;
    case Intensity:
        value = orNone(m.intensity);
        break;
    case Bound:
    case ColumnCount:
        break;
    }
    if (role == Qt::UserRole) {
        if (index.column() == Name) return QString::fromStdString(n.name);
        if (index.column() == Bound) return QString::fromUtf8(boundByName(m.bound).data());
        return value;
    }
    if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Bound)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Name) {
        if (n.cell < 0) return QString::fromStdString(n.name);
        const RooflineOp& op = roofline_->ops[roofline_->cells[size_t(n.cell)].op];
        QString tip = QString::fromStdString(op.name + "\n" + op.category + "  " + op.shape);
        if (!op.frameworkOp.empty()) tip += QString::fromStdString("\n" + op.frameworkOp);
        if (!op.source.empty()) tip += QString::fromStdString("\n" + op.source);
        tip += QString("\n%1").arg(QString::fromUtf8(precisionName(op.precision).data()));
        return tip;
    }
    if (role != Qt::DisplayRole) return {};
    switch (Column(index.column())) {
    case Name:
        return QString::fromStdString(n.name);
    case Bound:
        return QString::fromUtf8(boundByName(m.bound).data());
    case Time:
        return std::isnan(value) ? QString() : QString::number(value, 'f', 3);
    case TimeShare:
    case ComputeShare:
    case MemoryShare:
        return std::isnan(value) ? QString() : QString::number(value, 'f', 1) + "%";
    case Bytes:
        return std::isnan(value) ? QString() : QString::fromStdString(formatBytes(value));
    case Intensity:
        return std::isnan(value) ? QString() : QString::number(value, 'g', 4);
    default:
        return std::isnan(value) ? QString() : QString::fromStdString(formatSi(value));
    }
}

QVariant OpProfileModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return {};
    return QString::fromUtf8(kHeaders[section]);
}

} // namespace stepscope
