#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "model/Table.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QTableView;

namespace stepscope {

class TableModel;
class TableFilterProxy;

// The table widget every tool uses to show a stepscope::Table:
//   - a filter box: case-insensitive substring match over all text columns, or over the column
//     picked beside it; addColumnFilter() adds more boxes bound to one column each (all must
//     match);
//   - a QTableView sortable by any column (numbers sort as numbers, largest first on the first
//     click), long text elided in the middle (op paths keep their first and last components:
//     PathElideDelegate) with the full text in the tooltip, columns sized
//     to their content; when they do not fit, long text columns give up width first so the
//     numbers stay in view;
//   - a column chooser (right click on the header), remembered per table (viewSettings());
//   - a row menu (right click): copy, filter to this cell's text, and the owner's row action
//     (setRowActionText), which emits rowActivated as a double-click does;
//   - Ctrl+C copies the selected cells as tab-separated text (full-precision numbers);
//   - "Export CSV…" writes the rows as currently filtered and sorted (model/Csv.h rules) and
//     says where it wrote.
// setTable() shows a new table in its own row order (no sort column) and keeps the filters.
class DataTableView : public QWidget {
    Q_OBJECT
public:
    explicit DataTableView(QWidget* parent = nullptr);

    void setTable(Table table);
    const Table& table() const;

    // An extra filter box on the column named `columnName` (ignored if the table lacks it).
    void addColumnFilter(const QString& columnName, const QString& placeholder);
    // File name offered by "Export CSV…" (without directory); also names the table in the
    // settings (hidden columns).
    void setExportFileName(const QString& name);
    // Names the row action of the row menu ("Show longest instance in the trace viewer");
    // empty (the default) leaves it out.
    void setRowActionText(const QString& text) { rowActionText_ = text; }
    // Shows these columns first, in this order, then the others in the table's order (names the
    // table lacks are skipped; kept across setTable). The screen order (and Ctrl+C, which copies
    // what is seen) changes; CSV export keeps the table's order, as the command line writes it.
    void setLeadingColumns(const QStringList& names);

    // Shows only rows whose `columnName` contains `text` (the column's own filter box when it
    // has one, else the main box bound to that column); kept until the user changes it.
    void filterTo(const QString& columnName, const QString& text);
    // Hides or shows a column by name (remembered).
    void setColumnHidden(const QString& columnName, bool hidden);
    bool isColumnHidden(const QString& columnName) const;
    // The menus as a right click opens them, for tests: on a cell (view index of the proxy)
    // and on the header.
    QMenu* rowMenu(const QModelIndex& index);
    QMenu* columnMenu();

    // Source rows in on-screen order (after filtering and sorting).
    std::vector<size_t> visibleRows() const;
    // Writes visibleRows() as CSV; on failure returns false with a message in *error.
    bool exportCsv(const QString& path, QString* error) const;
    // The selection as TSV, as Ctrl+C puts it on the clipboard.
    QString selectionAsTsv() const;

    // The height that shows the filter bar, the header and `rows` rows (with a horizontal
    // scroll bar), for owners that size panes to their tables.
    int heightForRows(int rows) const;

    QTableView* tableView() const { return view_; }
    QLineEdit* filterEdit() const { return filter_; }

signals:
    // A row was double-clicked or activated with Enter; the index is a table (source) row.
    void rowActivated(int sourceRow);

private:
    void applyFilters();
    void fitColumns();
    void layoutColumns();
    // Header labels wrap at spaces onto up to three lines, so that long labels ("Op is
    // TensorCore eligible") do not make number columns wide.
    static constexpr int kHeaderLines = 3;
    // The narrowest width that shows a column's label on kHeaderLines lines, with the style's
    // padding (also returned in *padding).
    int headerWidth(int column, int* padding) const;
    void orderColumns();
    void loadHiddenColumns();
    void saveHiddenColumns() const;
    void updateCount();
    void exportClicked();

    TableModel* model_;
    TableFilterProxy* proxy_;
    QTableView* view_;
    QLineEdit* filter_;
    QComboBox* filterColumn_;
    QLabel* count_;
    QLabel* exported_ = nullptr;
    struct ColumnFilter {
        QString column;
        QLineEdit* edit;
    };
    std::vector<ColumnFilter> columnFilters_;
    QString exportFileName_ = "table.csv";
    QString rowActionText_;
    QString pendingFilterColumn_;    // filterTo() before the table had that column
    QStringList hiddenColumns_;      // by name, as remembered
    QStringList leadingColumns_;     // shown first (setLeadingColumns)
    std::vector<int> naturalWidths_; // per column: content width (long text capped)
};

} // namespace stepscope
