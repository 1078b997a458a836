#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/Profile.h"
#include "model/Table.h"

namespace stepscope::cli {

// Options of one `export` run after TOOL and PATH, by name without the leading "--": a flag
// ("include-idle") maps to "", an option with a value ("memory-id") to its value.
using ExportOptions = std::map<std::string, std::string>;

struct ExportOption {
    std::string name; // without "--"
    bool takesValue;  // "--memory-id ID" vs. "--include-idle"
    std::string help; // one line for the usage text
};

// One tool that `stepscope-cli export` can write. Both outputs come from the same analysis as
// the tool's page: `csv` is the page's main table; `json` is everything the page shows (for
// table-only tools, the table under "rows").
struct Exporter {
    // The export's name: the tool's key (toolKey) where it writes one tool's page, else its own
    // ("roofline", "pytorch_ops", ...).
    std::string tool;
    std::string description;
    std::vector<ExportOption> options;
    std::function<Table(const Profile&, const ExportOptions&)> csv;
    std::function<std::string(const Profile&, const ExportOptions&)> json;
};

// Every exporter, in the order the usage text lists them.
const std::vector<Exporter>& exporters();

// A JSON document {"tool": TOOL, "rows": [...]} holding one table, for tools whose page is a
// table.
std::string tableExportJson(std::string_view tool, const Table& table);

} // namespace stepscope::cli
