#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "model/Table.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace stepscope {

class TableModel;
class TableFilterProxy;

// The table widget every tool uses to show a stepscope::Table:
//   - a filter box: case-insensitive substring match over all text columns, or over the column
//     picked beside it; addColumnFilter() adds more boxes bound to one column each (all must
//     match);
//   - a QTableView sortable by any column (numbers sort as numbers), long text elided in the
//     middle with the full text in the tooltip, columns sized to their content;
//   - Ctrl+C copies the selected cells as tab-separated text (full-precision numbers);
//   - "Export CSV…" writes the rows as currently filtered and sorted (model/Csv.h rules).
// setTable() shows a new table in its own row order (no sort column) and keeps the filters.
class DataTableView : public QWidget {
    Q_OBJECT
public:
    explicit DataTableView(QWidget* parent = nullptr);

    void setTable(Table table);
    const Table& table() const;

    // An extra filter box on the column named `columnName` (ignored if the table lacks it).
    void addColumnFilter(const QString& columnName, const QString& placeholder);
    // File name offered by "Export CSV…" (without directory).
    void setExportFileName(const QString& name) { exportFileName_ = name; }

    // Source rows in on-screen order (after filtering and sorting).
    std::vector<size_t> visibleRows() const;
    // Writes visibleRows() as CSV; on failure returns false with a message in *error.
    bool exportCsv(const QString& path, QString* error) const;
    // The selection as TSV, as Ctrl+C puts it on the clipboard.
    QString selectionAsTsv() const;

    QTableView* tableView() const { return view_; }
    QLineEdit* filterEdit() const { return filter_; }

signals:
    // A row was double-clicked or activated with Enter; the index is a table (source) row.
    void rowActivated(int sourceRow);

private:
    void applyFilters();
    void fitColumns();
    void updateCount();
    void exportClicked();

    TableModel* model_;
    TableFilterProxy* proxy_;
    QTableView* view_;
    QLineEdit* filter_;
    QComboBox* filterColumn_;
    QLabel* count_;
    struct ColumnFilter {
        QString column;
        QLineEdit* edit;
    };
    std::vector<ColumnFilter> columnFilters_;
    QString exportFileName_ = "table.csv";
};

} // namespace stepscope
