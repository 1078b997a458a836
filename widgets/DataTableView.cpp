#include "widgets/DataTableView.h"
#include "widgets/PathElideDelegate.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QSaveFile>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "model/Csv.h"
#include "widgets/TableModel.h"
#include "widgets/ViewSettings.h"

namespace stepscope {

namespace {
// Re-lays the columns out whenever the table's viewport changes width.
class ViewportWidth : public QObject {
public:
    ViewportWidth(QObject* parent, std::function<void()> changed)
        : QObject(parent)
        , changed_(std::move(changed)) {}

protected:
    bool eventFilter(QObject* o, QEvent* e) override {
        if (e->type() == QEvent::Resize) {
            auto* r = static_cast<QResizeEvent*>(e);
            if (r->size().width() != r->oldSize().width()) changed_();
        }
        return QObject::eventFilter(o, e);
    }

private:
    std::function<void()> changed_;
};
} // namespace

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
    view_->setItemDelegate(new PathElideDelegate(view_));
    view_->setWordWrap(false);
    view_->setAlternatingRowColors(true);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->verticalHeader()->setVisible(false);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    view_->horizontalHeader()->setHighlightSections(false);
    view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    view_->horizontalHeader()->setResizeContentsPrecision(200);
    view_->horizontalHeader()->setStretchLastSection(false);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    view_->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    view_->horizontalHeader()->setToolTip(tr("Right click to choose the columns"));
    view_->viewport()->installEventFilter(new ViewportWidth(this, [this] { layoutColumns(); }));

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
    exported_ = new QLabel(this);
    exported_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long path must not widen the window: the label takes what is left (full text on hover).
    exported_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(exported_, 1);
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
    connect(view_, &QWidget::customContextMenuRequested, this, [this](QPoint pos) {
        const QModelIndex index = view_->indexAt(pos);
        if (!index.isValid()) return;
        QMenu* menu = rowMenu(index);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(view_->viewport()->mapToGlobal(pos));
    });
    connect(view_->horizontalHeader(), &QWidget::customContextMenuRequested, this,
            [this](QPoint pos) {
                QMenu* menu = columnMenu();
                menu->setAttribute(Qt::WA_DeleteOnClose);
                menu->popup(view_->horizontalHeader()->mapToGlobal(pos));
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
    const int keep =
        filterColumn_->findText(pendingFilterColumn_.isEmpty() ? column : pendingFilterColumn_);
    if (keep > 0) pendingFilterColumn_.clear();
    filterColumn_->setCurrentIndex(keep > 0 ? keep : 0);
    applyFilters();
    for (int c = 0; c < int(t.columnCount()); ++c)
        view_->setColumnHidden(
            c, hiddenColumns_.contains(QString::fromStdString(t.column(size_t(c)).name)));
    orderColumns();
    fitColumns();
}

int DataTableView::heightForRows(int rows) const {
    const QHeaderView* header = view_->horizontalHeader();
    const int table = 2 * view_->frameWidth() +
                      std::max(header->minimumHeight(), header->sizeHint().height()) +
                      rows * view_->verticalHeader()->defaultSectionSize() +
                      view_->horizontalScrollBar()->sizeHint().height();
    // The filter bar and the spacing above the table: the layout's hint less the table's.
    return layout()->sizeHint().height() - view_->sizeHint().height() + table;
}

void DataTableView::setLeadingColumns(const QStringList& names) {
    leadingColumns_ = names;
    orderColumns();
    layoutColumns();
}

void DataTableView::orderColumns() {
    QHeaderView* header = view_->horizontalHeader();
    // The table's own order, then the leading columns moved to the front in their order.
    for (int c = 0; c < header->count(); ++c) header->moveSection(header->visualIndex(c), c);
    int to = 0;
    for (const QString& name : leadingColumns_) {
        const int c = model_->table().columnIndex(name.toStdString());
        if (c >= 0) header->moveSection(header->visualIndex(c), to++);
    }
}

void DataTableView::setExportFileName(const QString& name) {
    exportFileName_ = name;
    loadHiddenColumns();
}

void DataTableView::loadHiddenColumns() {
    hiddenColumns_ =
        viewSettings()
            ? viewSettings()->value("tables/" + exportFileName_ + "/hiddenColumns").toStringList()
            : QStringList();
    const Table& t = model_->table();
    for (int c = 0; c < int(t.columnCount()); ++c)
        view_->setColumnHidden(
            c, hiddenColumns_.contains(QString::fromStdString(t.column(size_t(c)).name)));
    layoutColumns();
}

void DataTableView::saveHiddenColumns() const {
    if (viewSettings())
        viewSettings()->setValue("tables/" + exportFileName_ + "/hiddenColumns", hiddenColumns_);
}

bool DataTableView::isColumnHidden(const QString& columnName) const {
    const int c = model_->table().columnIndex(columnName.toStdString());
    return c >= 0 ? view_->isColumnHidden(c) : hiddenColumns_.contains(columnName);
}

void DataTableView::setColumnHidden(const QString& columnName, bool hidden) {
    hiddenColumns_.removeAll(columnName);
    if (hidden) hiddenColumns_ << columnName;
    saveHiddenColumns();
    const int c = model_->table().columnIndex(columnName.toStdString());
    if (c >= 0) view_->setColumnHidden(c, hidden);
    layoutColumns();
}

void DataTableView::filterTo(const QString& columnName, const QString& text) {
    for (const ColumnFilter& f : columnFilters_)
        if (f.column == columnName) {
            f.edit->setText(text);
            return;
        }
    const int index = filterColumn_->findText(columnName);
    if (index > 0) {
        filterColumn_->setCurrentIndex(index);
        pendingFilterColumn_.clear();
    } else {
        pendingFilterColumn_ = columnName;
    }
    filter_->setText(text);
}

QMenu* DataTableView::rowMenu(const QModelIndex& index) {
    auto* menu = new QMenu(this);
    const QModelIndex source = proxy_->mapToSource(index);
    if (!source.isValid()) return menu;
    if (!view_->selectionModel()->isRowSelected(index.row(), {})) view_->selectRow(index.row());
    menu->addAction(tr("Copy"), this,
                    [this] { QApplication::clipboard()->setText(selectionAsTsv()); });
    // Filter on the clicked cell's text, or on the row's first shown text column.
    const Table& t = model_->table();
    int column = source.column();
    if (t.column(size_t(column)).type != Table::Type::Text) {
        column = -1;
        for (size_t c = 0; c < t.columnCount() && column < 0; ++c)
            if (t.column(c).type == Table::Type::Text && !view_->isColumnHidden(int(c)))
                column = int(c);
    }
    if (column >= 0) {
        const QString name = QString::fromStdString(t.column(size_t(column)).name);
        const QString text = QString::fromStdString(t.text(size_t(source.row()), size_t(column)));
        const QString shown = fontMetrics().elidedText(text, Qt::ElideMiddle, 300);
        menu->addAction(tr("Filter to %1 “%2”").arg(name, shown), this,
                        [this, name, text] { filterTo(name, text); });
    }
    if (!rowActionText_.isEmpty()) {
        const int row = source.row();
        menu->addAction(rowActionText_, this, [this, row] { emit rowActivated(row); });
    }
    return menu;
}

QMenu* DataTableView::columnMenu() {
    auto* menu = new QMenu(this);
    const Table& t = model_->table();
    int shown = 0;
    for (int c = 0; c < int(t.columnCount()); ++c) shown += view_->isColumnHidden(c) ? 0 : 1;
    for (int c = 0; c < int(t.columnCount()); ++c) {
        const QString name = QString::fromStdString(t.column(size_t(c)).name);
        QAction* a = menu->addAction(name);
        a->setCheckable(true);
        a->setChecked(!view_->isColumnHidden(c));
        a->setEnabled(view_->isColumnHidden(c) || shown > 1); // never hide the last column
        connect(a, &QAction::toggled, this, [this, name](bool on) { setColumnHidden(name, !on); });
    }
    menu->addSeparator();
    menu->addAction(tr("Show all columns"), this, [this] {
        hiddenColumns_.clear();
        saveHiddenColumns();
        for (int c = 0; c < model_->columnCount(); ++c) view_->setColumnHidden(c, false);
        layoutColumns();
    });
    return menu;
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

int DataTableView::headerWidth(int column, int* paddingOut) const {
    // The label on at most kHeaderLines lines, split at the spaces that make the widest line
    // narrowest, plus the room the style takes around it (margins and the sort arrow).
    const QHeaderView* header = view_->horizontalHeader();
    const QFontMetrics fm(header->font());
    const QString label = model_->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    const QStringList words = label.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const int n = int(words.size());
    auto span = [&](int from, int to) { // words [from, to) on one line
        return fm.horizontalAdvance(words.mid(from, to - from).join(QLatin1Char(' ')));
    };
    int best = fm.horizontalAdvance(label);
    for (int a = 1; a < n; ++a) {
        best = std::min(best, std::max(span(0, a), span(a, n)));
        for (int b = a + 1; b < n; ++b)
            best = std::min(best, std::max({span(0, a), span(a, b), span(b, n)}));
    }
    const int padding = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) * 2 +
                        header->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header) +
                        6;
    if (paddingOut) *paddingOut = padding;
    return best + padding;
}

void DataTableView::fitColumns() {
    // Every column as wide as its cells and its header on two lines; long text such as kernel
    // names is capped, and gives up more width when the columns do not fit (layoutColumns).
    const int maxText = std::max(240, fontMetrics().horizontalAdvance(QLatin1Char('x')) * 70);
    naturalWidths_.assign(size_t(model_->columnCount()), 0);
    int headerLines = 1;
    for (int c = 0; c < model_->columnCount(); ++c) {
        const int cells = static_cast<const QAbstractItemView*>(view_)->sizeHintForColumn(c);
        int padding = 0;
        const int header = headerWidth(c, &padding);
        const int width = std::max(cells, header);
        naturalWidths_[size_t(c)] = model_->isNumeric(c) ? width : std::min(width, maxText);
        // The lines the label takes at that width (wider cells leave it fewer).
        const QFontMetrics fm(view_->horizontalHeader()->font());
        const QString label = model_->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
        const int height =
            fm.boundingRect(QRect(0, 0, std::max(1, naturalWidths_[size_t(c)] - padding), 10000),
                            Qt::TextWordWrap, label)
                .height();
        headerLines =
            std::clamp((height + fm.height() - 1) / fm.height(), headerLines, kHeaderLines);
    }
    QHeaderView* header = view_->horizontalHeader();
    header->setMinimumHeight(headerLines * header->fontMetrics().height() + 8);
    layoutColumns();
}

void DataTableView::layoutColumns() {
    const int n = model_->columnCount();
    if (int(naturalWidths_.size()) != n || n == 0) return;
    // The widest text column is narrowed first, down to minText, until the shown columns fit:
    // the largest cap L with numbers + sum(min(text width, L)) <= the viewport's width. When
    // even minText does not fit them all, and leading columns are set, the columns up to the
    // last leading one are fitted instead (the rest scroll into view), so the names keep the
    // width those need not.
    const int minText = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 16;
    const int avail = view_->viewport()->width();
    int lastCounted = n; // visual index: columns after it are not fitted
    int fixed = 0, widest = 0;
    auto total = [&](int cap) {
        int sum = fixed;
        for (int c = 0; c < n; ++c)
            if (!view_->isColumnHidden(c) && !model_->isNumeric(c) &&
                view_->horizontalHeader()->visualIndex(c) <= lastCounted)
                sum += std::min(naturalWidths_[size_t(c)], cap);
        return sum;
    };
    auto measure = [&] {
        fixed = widest = 0;
        for (int c = 0; c < n; ++c) {
            if (view_->isColumnHidden(c) || view_->horizontalHeader()->visualIndex(c) > lastCounted)
                continue;
            if (model_->isNumeric(c))
                fixed += naturalWidths_[size_t(c)];
            else
                widest = std::max(widest, naturalWidths_[size_t(c)]);
        }
    };
    measure();
    if (total(minText) > avail && !leadingColumns_.empty()) {
        lastCounted = -1;
        for (const QString& name : leadingColumns_) {
            const int c = model_->table().columnIndex(name.toStdString());
            if (c >= 0)
                lastCounted = std::max(lastCounted, view_->horizontalHeader()->visualIndex(c));
        }
        if (lastCounted < 0) lastCounted = n;
        measure();
    }
    int cap = widest;
    if (total(widest) > avail) {
        int lo = minText, hi = widest;
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (total(mid) <= avail)
                lo = mid;
            else
                hi = mid - 1;
        }
        cap = lo;
    }
    for (int c = 0; c < n; ++c)
        view_->setColumnWidth(
            c, model_->isNumeric(c)
                   ? naturalWidths_[size_t(c)]
                   : std::min(naturalWidths_[size_t(c)],
                              std::max(cap, std::min(minText, naturalWidths_[size_t(c)]))));
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
    // Written whole beside the destination and renamed over it only then (QSaveFile), so a full
    // disk or a file size limit never leaves a cut or empty file where an older export was.
    // Unbuffered: Qt 6.4's commit() loses an error of the flush of its buffer and renames a cut
    // file into place (seen with a file size limit), while a failed direct write is remembered.
    // A short write is tried again: the system says why only on the write that writes nothing.
    std::ostringstream text;
    writeCsv(model_->table(), text, visibleRows());
    const std::string bytes = text.str();
    QSaveFile file(path);
    bool ok = file.open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    for (qint64 at = 0; ok && at < qint64(bytes.size());) {
        const qint64 n = file.write(bytes.data() + at, qint64(bytes.size()) - at);
        ok = n > 0;
        at += n;
    }
    ok = ok && file.commit();
    if (!ok && error) *error = tr("Cannot write %1: %2").arg(path, file.errorString());
    return ok;
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
    if (!exportCsv(path, &error)) {
        QMessageBox::warning(this, tr("Export CSV"), error);
        return;
    }
    exported_->setText(tr("Wrote %1 rows to %2").arg(proxy_->rowCount()).arg(path));
    exported_->setToolTip(exported_->text());
}

} // namespace stepscope
