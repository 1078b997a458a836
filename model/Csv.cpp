#include "model/Csv.h"

#include <cmath>
#include <variant>

namespace stepscope {

std::string csvField(std::string_view text) {
    const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos;
    if (!quote) return std::string(text);
    std::string out;
    out.reserve(text.size() + 2);
    out.push_back('"');
    for (char c : text) {
        if (c == '"') out.push_back('"');
        out.push_back(c);
    }
    out.push_back('"');
    return out;
}

namespace {
bool looksLikeFormula(std::string_view s) {
    return !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@');
}
} // namespace

std::string csvCell(const Table& table, size_t row, size_t col) {
    const Table::Cell& cell = table.cell(row, col);
    if (const auto* s = std::get_if<std::string>(&cell)) {
        if (looksLikeFormula(*s)) return csvField("'" + *s);
        return csvField(*s);
    }
    return table.exactText(row, col);
}

namespace {
constexpr std::string_view kLineEnd = "\r\n";

void writeHeader(const Table& table, std::ostream& out) {
    for (size_t c = 0; c < table.columnCount(); ++c) {
        if (c) out << ',';
        const std::string& name = table.column(c).name;
        out << (looksLikeFormula(name) ? csvField("'" + name) : csvField(name));
    }
    out << kLineEnd;
}

void writeRow(const Table& table, std::ostream& out, size_t r) {
    for (size_t c = 0; c < table.columnCount(); ++c) {
        if (c) out << ',';
        out << csvCell(table, r, c);
    }
    out << kLineEnd;
}
} // namespace

void writeCsv(const Table& table, std::ostream& out) {
    writeHeader(table, out);
    for (size_t r = 0; r < table.rowCount(); ++r) writeRow(table, out, r);
}

void writeCsv(const Table& table, std::ostream& out, const std::vector<size_t>& rowOrder) {
    writeHeader(table, out);
    for (size_t r : rowOrder) writeRow(table, out, r);
}

} // namespace stepscope
