#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace stepscope {

// How a numeric column reads on screen. CSV always carries the full-precision value.
enum class ColumnFormat : uint8_t {
    Plain,        // integers as is, doubles with up to 3 decimals
    Microseconds, // value is in µs; shown with 3 significant decimals
    Percent,      // value is 0..100; shown as "12.3%"
    Bytes,        // value is bytes; shown as KiB/MiB/GiB
    Bool,         // 0/1; shown as "Yes"/"No"; a missing value (NaN) shows as "Unknown"
    Si,           // a count or rate; shown with an SI prefix, 3 significant digits ("25.8 G")
};

// An analysis result: named, typed columns of equal length. A numeric cell holding a NaN double
// means "no value" (an average of nothing, a property the profile does not record): it reads as
// empty on screen, in CSV and in the CLI's text, as null in JSON, and sorts below every number.
// Analyses return these; the GUI wraps them in a QAbstractTableModel, CSV export and the CLI write
// them, so all three agree.
class Table {
public:
    using Cell = std::variant<int64_t, double, std::string>;
    enum class Type : uint8_t { Int, Double, Text };

    struct Column {
        std::string name;
        Type type = Type::Text;
        ColumnFormat format = ColumnFormat::Plain;
        std::string tooltip;
    };

    int addColumn(std::string name, Type type, ColumnFormat format = ColumnFormat::Plain,
                  std::string tooltip = {});
    // Appends a row; `cells` must have one value per column, of the column's type.
    void addRow(std::vector<Cell> cells);

    size_t rowCount() const { return rows_.size(); }
    size_t columnCount() const { return columns_.size(); }
    const Column& column(size_t c) const { return columns_[c]; }
    const std::vector<Column>& columns() const { return columns_; }
    int columnIndex(std::string_view name) const; // -1 if absent
    const Cell& cell(size_t row, size_t col) const { return rows_[row][col]; }
    double number(size_t row, size_t col) const; // Int or Double as double; 0 for text
    const std::string& text(size_t row, size_t col) const;
    bool isMissing(size_t row, size_t col) const; // a NaN double: no value
    static double missing();                      // the value to store for "no value"

    // Full precision, as CSV and the CLI write it; empty for a missing value.
    std::string exactText(size_t row, size_t col) const;
    // As the screen shows it (units, rounding); empty for a missing value.
    std::string displayText(size_t row, size_t col) const;

private:
    std::vector<Column> columns_;
    std::vector<std::vector<Cell>> rows_;
};

} // namespace stepscope
