// `stepscope-cli export TOOL PATH (--csv OUT | --json OUT) [tool options]`: what a tool shows,
// built by the same analysis as the GUI page and written by the same writers (CSV: the page's
// main table in its default row order, as the GUI's "Export CSV…" writes it; JSON: everything the
// page shows). OUT may be '-' for standard output.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/CliCache.h"
#include "app/cli/Commands.h"
#include "app/cli/Exporters.h"
#include "model/AtomicFile.h"
#include "model/Csv.h"
#include "model/ProfileLoader.h"

namespace stepscope::cli {

namespace {

std::string usage() {
    std::string u = "usage: stepscope-cli export TOOL PATH (--csv OUT | --json OUT) [OPTIONS]\n"
                    "  TOOL   one of:\n";
    for (const Exporter& e : exporters()) {
        u += "           " + e.tool +
             std::string(e.tool.size() < 20 ? 20 - e.tool.size() : 1, ' ') + e.description + "\n";
        for (const ExportOption& o : e.options)
            u += "             --" + o.name + (o.takesValue ? " VALUE" : "") + "  " + o.help + "\n";
    }
    u += "  PATH   a profile file, a run folder or a TensorBoard log directory\n"
         "  OUT    the file to write ('-' for standard output)\n"
         "  --no-cache  load the sources, neither reading nor writing the profile cache\n";
    return u;
}

int usageError(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli export: %s\n%s", message.c_str(), usage().c_str());
    return 2;
}

const Exporter* findExporter(const std::string& tool) {
    for (const Exporter& e : exporters())
        if (e.tool == tool) return &e;
    return nullptr;
}

const ExportOption* findOption(const Exporter& e, const std::string& name) {
    for (const ExportOption& o : e.options)
        if (o.name == name) return &o;
    return nullptr;
}

std::string knownTools() {
    std::string s;
    for (const Exporter& e : exporters()) s += (s.empty() ? "" : ", ") + e.tool;
    return s;
}

} // namespace

int runExport(const std::vector<std::string>& argsIn) {
    std::vector<std::string> args = argsIn;
    const bool noCache = takeNoCacheFlag(args);
    if (args.empty()) return usageError("expected TOOL and PATH");
    if (args[0] == "-h" || args[0] == "--help") {
        std::fputs(usage().c_str(), stdout);
        return 0;
    }
    const Exporter* exporter = findExporter(args[0]);
    if (!exporter)
        return usageError("unknown tool '" + args[0] + "' (known: " + knownTools() + ")");

    std::string path, out, format;
    ExportOptions options;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--csv" || a == "--json") {
            if (!format.empty()) return usageError("give one of --csv OUT and --json OUT");
            if (i + 1 >= args.size()) return usageError(a + " needs a file name (or '-')");
            format = a.substr(2);
            out = args[++i];
        } else if (a == "-h" || a == "--help") {
            std::fputs(usage().c_str(), stdout);
            return 0;
        } else if (a.size() > 2 && a.starts_with("--")) {
            const ExportOption* o = findOption(*exporter, a.substr(2));
            if (!o) return usageError("unknown option '" + a + "' for " + exporter->tool);
            if (o->takesValue && i + 1 >= args.size()) return usageError(a + " needs a value");
            options[o->name] = o->takesValue ? args[++i] : std::string();
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("unknown option '" + a + "'");
        } else if (path.empty()) {
            path = a;
        } else {
            return usageError("unexpected argument '" + a + "'");
        }
    }
    if (path.empty()) return usageError("expected TOOL and PATH");
    if (format.empty()) return usageError("missing --csv OUT or --json OUT");

    const auto cache = noCache ? nullptr : openCliCache("stepscope-cli export");
    const LoadResult loaded = loadPathCached(path, cache.get());
    if (!loaded.ok()) {
        std::fprintf(stderr, "stepscope-cli export: cannot load %s: %s\n", path.c_str(),
                     loaded.error.c_str());
        return 1;
    }
    std::string text;
    try {
        if (format == "csv") {
            const Table table = exporter->csv(*loaded.profile, options);
            if (table.rowCount() == 0)
                std::fprintf(stderr,
                             "stepscope-cli export: note: %s has no data for %s; writing the "
                             "header only\n",
                             path.c_str(), exporter->tool.c_str());
            std::ostringstream s;
            writeCsv(table, s);
            text = s.str();
        } else {
            text = exporter->json(*loaded.profile, options);
            text += '\n';
        }
    } catch (const std::exception& e) {
        // An exporter rejects an option value (an unknown memory id, ...) by throwing.
        std::fprintf(stderr, "stepscope-cli export: %s\n", e.what());
        return 1;
    }

    if (out == "-") {
        std::cout.write(text.data(), std::streamsize(text.size()));
        std::cout.flush();
        return std::cout ? 0 : 1;
    }
    if (const std::string error = writeFileAtomically(out, text); !error.empty()) {
        std::fprintf(stderr, "stepscope-cli export: %s\n", error.c_str());
        return 1;
    }
    std::fprintf(stderr, "stepscope-cli export: wrote %s\n", out.c_str());
    return 0;
}

} // namespace stepscope::cli
