#include "ui/widgets/DataTableView.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "model/Csv.h"
#include "ui/widgets/TableModel.h"

namespace stepscope {

// Filters on the table's text directly (lower-cased once per table), so typing stays quick on
// tables of hundreds of thousands of rows.
class TableFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setTable(const Table& table) {
        lowered_.assign(table.columnCount(), {});
        for (size_t c = 0; c < table.columnCount(); ++c) {
            if (table.column(c).type != Table::Type::Text) continue;
            lowered_[c].reserve(table.rowCount());
            for (size_t r = 0; r < table.rowCount(); ++r)
                lowered_[c].push_back(QString::fromStdString(table.text(r, c)).toLower());
        }
    }
    // column -1: any text column.
    void setFilters(QString anyText, int anyColumn, std::vector<std::pair<int, QString>> byColumn) {
        anyText_ = anyText.toLower();
        anyColumn_ = anyColumn;
        byColumn_ = std::move(byColumn);
        for (auto& [c, text] : byColumn_) text = text.toLower();
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex&) const override {
        auto has = [&](int c, const QString& needle) {
            if (c < 0 || size_t(c) >= lowered_.size()) return false;
            if (lowered_[c].empty()) {
                const QModelIndex i = sourceModel()->index(row, c);
                return sourceModel()->data(i).toString().contains(needle, Qt::CaseInsensitive);
            }
            return lowered_[c][size_t(row)].contains(needle);
        };
        for (const auto& [c, needle] : byColumn_)
            if (!needle.isEmpty() && !has(c, needle)) return false;
        if (anyText_.isEmpty()) return true;
        if (anyColumn_ >= 0) return has(anyColumn_, anyText_);
        for (size_t c = 0; c < lowered_.size(); ++c)
            if (!lowered_[c].empty() && lowered_[c][size_t(row)].contains(anyText_)) return true;
        return false;
    }

private:
    std::vector<std::vector<QString>> lowered_; // per text column; empty for numeric columns
    QString anyText_;
    int anyColumn_ = -1;
    std::vector<std::pair<int, QString>> byColumn_;
};

DataTableView::DataTableView(QWidget* parent)
    : QWidget(parent)
    , model_(new TableModel(this))
    , proxy_(new TableFilterProxy(this))
    , view_(new QTableView(this))
    , filter_(new QLineEdit(this))
    , filterColumn_(new QComboBox(this))
    , count_(new QLabel(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(TableModel::SortRole);
    proxy_->setSortCaseSensitivity(Qt::CaseInsensitive);

    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->setTextElideMode(Qt::ElideMiddle);
    view_->setWordWrap(false);
    view_->setAlternatingRowColors(true);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->verticalHeader()->setVisible(false);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    view_->horizontalHeader()->setHighlightSections(false);
    view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    view_->horizontalHeader()->setResizeContentsPrecision(200);
    view_->horizontalHeader()->setStretchLastSection(false);

    filter_->setPlaceholderText(tr("Filter (substring, any case)"));
    filter_->setClearButtonEnabled(true);
    auto* exportButton = new QPushButton(tr("Export CSV…"), this);
    exportButton->setToolTip(tr("Write the rows shown, in this order, as CSV"));

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    filterColumn_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    filterColumn_->setToolTip(tr("Column the filter searches"));
    count_->setMinimumWidth(count_->fontMetrics().horizontalAdvance(tr("0000000 of 0000000 rows")));
    bar->addWidget(filter_, 2);
    bar->addWidget(filterColumn_);
    bar->addWidget(count_);
    bar->addStretch();
    bar->addWidget(exportButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(view_, 1);

    connect(filter_, &QLineEdit::textChanged, this, &DataTableView::applyFilters);
    connect(filterColumn_, &QComboBox::currentIndexChanged, this, &DataTableView::applyFilters);
    connect(exportButton, &QPushButton::clicked, this, &DataTableView::exportClicked);
    connect(view_, &QTableView::activated, this, [this](const QModelIndex& index) {
        const QModelIndex source = proxy_->mapToSource(index);
        if (source.isValid()) emit rowActivated(source.row());
    });
    auto* copy = new QShortcut(QKeySequence::Copy, view_, nullptr, nullptr, Qt::WidgetShortcut);
    connect(copy, &QShortcut::activated, this,
            [this] { QApplication::clipboard()->setText(selectionAsTsv()); });
    connect(proxy_, &QAbstractItemModel::modelReset, this, &DataTableView::updateCount);
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, &DataTableView::updateCount);
    connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &DataTableView::updateCount);
    updateCount();
}

void DataTableView::setTable(Table table) {
    const QString column =
        filterColumn_->currentIndex() > 0 ? filterColumn_->currentText() : QString();
    proxy_->setTable(table);
    model_->setTable(std::move(table));
    // Show the analysis's own order until the user picks a column.
    view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    proxy_->sort(-1);

    const QSignalBlocker block(filterColumn_);
    filterColumn_->clear();
    filterColumn_->addItem(tr("All text columns"));
    const Table& t = model_->table();
    for (size_t c = 0; c < t.columnCount(); ++c)
        if (t.column(c).type == Table::Type::Text)
            filterColumn_->addItem(QString::fromStdString(t.column(c).name), int(c));
    const int keep = filterColumn_->findText(column);
    filterColumn_->setCurrentIndex(keep > 0 ? keep : 0);
    applyFilters();
    fitColumns();
}

const Table& DataTableView::table() const {
    return model_->table();
}

void DataTableView::addColumnFilter(const QString& columnName, const QString& placeholder) {
    auto* edit = new QLineEdit(this);
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    auto* bar = static_cast<QHBoxLayout*>(static_cast<QVBoxLayout*>(layout())->itemAt(0)->layout());
    bar->insertWidget(2 + int(columnFilters_.size()), edit, 1);
    columnFilters_.push_back({columnName, edit});
    connect(edit, &QLineEdit::textChanged, this, &DataTableView::applyFilters);
}

void DataTableView::applyFilters() {
    const Table& t = model_->table();
    std::vector<std::pair<int, QString>> byColumn;
    for (const ColumnFilter& f : columnFilters_) {
        const int c = t.columnIndex(f.column.toStdString());
        if (c >= 0) byColumn.emplace_back(c, f.edit->text());
    }
    const QVariant column = filterColumn_->currentData();
    proxy_->setFilters(filter_->text(), column.isValid() ? column.toInt() : -1,
                       std::move(byColumn));
    updateCount();
}

void DataTableView::fitColumns() {
    // Numbers and short text get their full width (and never less than the header); long text
    // such as kernel names is capped and elided in the middle.
    const int maxText = std::max(240, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 70);
    view_->resizeColumnsToContents();
    for (int c = 0; c < model_->columnCount(); ++c)
        if (!model_->isNumeric(c) && view_->columnWidth(c) > maxText)
            view_->setColumnWidth(c, maxText);
}

void DataTableView::updateCount() {
    const int shown = proxy_->rowCount(), total = model_->rowCount();
    count_->setText(shown == total ? tr("%1 rows").arg(total)
                                   : tr("%1 of %2 rows").arg(shown).arg(total));
}

std::vector<size_t> DataTableView::visibleRows() const {
    std::vector<size_t> rows;
    rows.reserve(size_t(proxy_->rowCount()));
    for (int r = 0; r < proxy_->rowCount(); ++r)
        rows.push_back(size_t(proxy_->mapToSource(proxy_->index(r, 0)).row()));
    return rows;
}

bool DataTableView::exportCsv(const QString& path, QString* error) const {
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    if (!out) {
        if (error) *error = tr("Cannot write %1").arg(path);
        return false;
    }
    writeCsv(model_->table(), out, visibleRows());
    out.flush();
    if (!out) {
        if (error) *error = tr("Writing %1 failed (disk full?)").arg(path);
        return false;
    }
    return true;
}

QString DataTableView::selectionAsTsv() const {
    const QModelIndexList selected = view_->selectionModel()->selectedIndexes();
    if (selected.isEmpty()) return {};
    std::map<int, std::map<int, QString>> cells; // view row -> view column -> text
    std::map<int, bool> columns;
    const Table& t = model_->table();
    for (const QModelIndex& i : selected) {
        const QModelIndex s = proxy_->mapToSource(i);
        const int visualColumn = view_->horizontalHeader()->visualIndex(i.column());
        const size_t sr = size_t(s.row()), sc = size_t(s.column());
        // Text as is; numbers in full precision, as in CSV.
        QString q = QString::fromStdString(
            t.column(sc).type == Table::Type::Text ? t.text(sr, sc) : csvCell(t, sr, sc));
        q.replace(QLatin1Char('\t'), QLatin1Char(' '));
        q.replace(QLatin1Char('\n'), QLatin1Char(' '));
        q.remove(QLatin1Char('\r'));
        cells[i.row()][visualColumn] = q;
        columns[visualColumn] = true;
    }
    QString out;
    for (const auto& [row, byColumn] : cells) {
        QStringList line;
        for (const auto& [column, unused] : columns) {
            auto it = byColumn.find(column);
            line << (it == byColumn.end() ? QString() : it->second);
        }
        out += line.join(QLatin1Char('\t')) + QLatin1Char('\n');
    }
    return out;
}

void DataTableView::exportClicked() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), exportFileName_,
                                                      tr("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportCsv(path, &error)) QMessageBox::warning(this, tr("Export CSV"), error);
}

} // namespace stepscope
