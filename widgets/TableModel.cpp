#include "widgets/TableModel.h"

#include <cmath>
#include <limits>
#include <variant>

namespace stepscope {

TableModel::TableModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void TableModel::setTable(Table table) {
    beginResetModel();
    table_ = std::move(table);
    endResetModel();
}

int TableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(table_.rowCount());
}

int TableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(table_.columnCount());
}

bool TableModel::isNumeric(int column) const {
    return column >= 0 && size_t(column) < table_.columnCount() &&
           table_.column(size_t(column)).type != Table::Type::Text;
}

QVariant TableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const size_t r = size_t(index.row()), c = size_t(index.column());
    const Table::Cell& cell = table_.cell(r, c);
    switch (role) {
    case Qt::DisplayRole:
        return QString::fromStdString(table_.displayText(r, c));
    case SortRole:
        if (std::holds_alternative<std::string>(cell))
            return QString::fromStdString(std::get<std::string>(cell));
        if (table_.isMissing(r, c)) return -std::numeric_limits<double>::infinity();
        return table_.number(r, c);
    case Qt::ToolTipRole:
        if (table_.isMissing(r, c)) return {};
        return QString::fromStdString(table_.exactText(r, c));
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(
            Qt::Alignment((isNumeric(int(c)) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    default:
        return {};
    }
}

QVariant TableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    const Table::Column& col = table_.column(size_t(section));
    switch (role) {
    case Qt::DisplayRole:
        return QString::fromStdString(col.name);
    case Qt::ToolTipRole:
        return QString::fromStdString(col.tooltip.empty() ? col.name : col.tooltip);
    case Qt::InitialSortOrderRole:
        // The first click on a number column shows the largest first; text sorts A to Z.
        return QVariant::fromValue(
            int(isNumeric(section) ? Qt::DescendingOrder : Qt::AscendingOrder));
    case Qt::TextAlignmentRole:
        // Headers wrap onto two lines, so long labels do not make number columns wide.
        return QVariant::fromValue(
            Qt::Alignment((isNumeric(section) ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter |
                          Qt::TextWordWrap));
    default:
        return {};
    }
}

} // namespace stepscope
