#include "model/Table.h"

#include "model/NumberFormat.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace stepscope {

int Table::addColumn(std::string name, Type type, ColumnFormat format, std::string tooltip) {
    columns_.push_back(Column{std::move(name), type, format, std::move(tooltip)});
    return static_cast<int>(columns_.size() - 1);
}

void Table::addRow(std::vector<Cell> cells) {
    if (cells.size() != columns_.size())
        throw std::logic_error("Table::addRow: cell count does not match column count");
    rows_.push_back(std::move(cells));
}

int Table::columnIndex(std::string_view name) const {
    for (size_t c = 0; c < columns_.size(); ++c)
        if (columns_[c].name == name) return static_cast<int>(c);
    return -1;
}

double Table::number(size_t row, size_t col) const {
    const Cell& c = rows_[row][col];
    if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&c)) return *d;
    return 0;
}

const std::string& Table::text(size_t row, size_t col) const {
    static const std::string empty;
    const auto* s = std::get_if<std::string>(&rows_[row][col]);
    return s ? *s : empty;
}

bool Table::isMissing(size_t row, size_t col) const {
    const auto* d = std::get_if<double>(&rows_[row][col]);
    return d && std::isnan(*d);
}

double Table::missing() {
    return std::numeric_limits<double>::quiet_NaN();
}

std::string Table::exactText(size_t row, size_t col) const {
    if (isMissing(row, col)) return {};
    const Cell& c = rows_[row][col];
    if (const auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&c)) return shortestNumber(*d);
    return std::get<std::string>(c);
}

namespace {
std::string formatFixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

} // namespace

std::string Table::displayText(size_t row, size_t col) const {
    const Cell& c = rows_[row][col];
    if (std::holds_alternative<std::string>(c)) return std::get<std::string>(c);
    if (isMissing(row, col)) return columns_[col].format == ColumnFormat::Bool ? "Unknown" : "";
    const bool isInt = std::holds_alternative<int64_t>(c);
    const double v = number(row, col);
    switch (columns_[col].format) {
    case ColumnFormat::Plain:
        return isInt ? exactText(row, col) : formatFixed(v, 3);
    case ColumnFormat::Microseconds:
        return formatFixed(v, 3);
    case ColumnFormat::Percent:
        return formatFixed(v, 1) + "%";
    case ColumnFormat::Bytes:
        return formatBytes(v);
    case ColumnFormat::Bool:
        return v != 0 ? "Yes" : "No";
    case ColumnFormat::Si:
        return formatSi(v);
    }
    return exactText(row, col);
}

} // namespace stepscope
