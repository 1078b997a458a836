#pragma once

#include <QAbstractTableModel>

#include "model/Table.h"

namespace stepscope {

// A read-only Qt item model over one stepscope::Table, the way every tool shows its tables.
//   Qt::DisplayRole        Table::displayText (units, rounding); NaN doubles ("no value") show
//                          as an empty cell
//   TableModel::SortRole   the raw value: a double for numeric columns (so they sort as
//                          numbers; NaN sorts below every number), the text for text columns
//   Qt::ToolTipRole        header: Column::tooltip (or the name); text cells: the full text
//                          (long kernel names are elided on screen); numbers: full precision
//   Qt::TextAlignmentRole  numbers right-aligned, text left-aligned; headers word-wrapped
//   Qt::InitialSortOrderRole  header: descending for numbers (a first click sorts the largest
//                          first), ascending for text
class TableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit TableModel(QObject* parent = nullptr);

    // Replaces the whole table (a model reset).
    void setTable(Table table);
    const Table& table() const { return table_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    bool isNumeric(int column) const;

private:
    Table table_;
};

} // namespace stepscope
