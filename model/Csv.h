#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "model/Table.h"

namespace stepscope {

// CSV as every table export writes it (GUI "Export CSV…", `stepscope-cli export`):
// - RFC 4180: one header line of column names, then one line per row; a field that contains a
//   comma, a double quote, CR or LF is quoted, and quotes inside it are doubled.
// - UTF-8 text as stored, no byte-order mark; lines end with CRLF, as RFC 4180 specifies.
// - Numbers are written in full precision (Table::exactText), never as shown on screen. A double
//   that is NaN means "no value" and is written as an empty field.
// - A TEXT cell whose first character is '=', '+', '-' or '@' gets a leading single quote, so a
//   spreadsheet shows it as text instead of running it as a formula. Numeric cells are never
//   escaped: -3.5 stays a number.
std::string csvField(std::string_view text);
std::string csvCell(const Table& table, size_t row, size_t col);

// Writes the header and every row, in table order.
void writeCsv(const Table& table, std::ostream& out);
// Writes the header and exactly the rows listed, in that order (a view's filtered, sorted rows).
void writeCsv(const Table& table, std::ostream& out, const std::vector<size_t>& rowOrder);

} // namespace stepscope
