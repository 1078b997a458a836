// `stepscope-cli export TOOL PATH --csv OUT [--include-idle]`: the table a tool shows, as CSV,
// built by the same analysis and written by the same CSV writer as the GUI's "Export CSV…"
// (the tool's default row order, no filter).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "model/Csv.h"
#include "model/ProfileLoader.h"
#include "model/analysis/KernelStats.h"
#include "model/analysis/TfOpStats.h"

namespace stepscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: stepscope-cli export TOOL PATH --csv OUT [--include-idle]\n"
    "  TOOL   tf_stats (TensorFlow op stats) or kernel_stats (GPU kernel stats)\n"
    "  PATH   a .xplane.pb file, a run folder or a TensorBoard log directory\n"
    "  OUT    the CSV file to write ('-' for standard output)\n"
    "  --include-idle   tf_stats only: add the IDLE rows, as the GUI's \"Include idle time\"\n";

int usageError(const std::string& message) {
    std::fprintf(stderr, "stepscope-cli export: %s\n%s", message.c_str(), kUsage);
    return 2;
}

} // namespace

int runExport(const std::vector<std::string>& args) {
    std::vector<std::string> positional;
    std::string out;
    bool includeIdle = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--csv") {
            if (i + 1 >= args.size()) return usageError("--csv needs a file name");
            out = args[++i];
        } else if (a == "--include-idle") {
            includeIdle = true;
        } else if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a.size() > 1 && a[0] == '-' && a != "-") {
            return usageError("unknown option '" + a + "'");
        } else {
            positional.push_back(a);
        }
    }
    if (positional.size() != 2) return usageError("expected TOOL and PATH");
    if (out.empty()) return usageError("missing --csv OUT");
    const std::string& tool = positional[0];
    const std::string& path = positional[1];
    if (tool != "tf_stats" && tool != "kernel_stats")
        return usageError("unknown tool '" + tool + "' (known: tf_stats, kernel_stats)");
    if (includeIdle && tool != "tf_stats")
        return usageError("--include-idle applies to tf_stats only");

    const LoadResult loaded = loadPath(path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "stepscope-cli export: cannot load %s: %s\n", path.c_str(),
                     loaded.error.c_str());
        return 1;
    }
    const Profile& profile = *loaded.profile;
    Table table;
    if (tool == "tf_stats") {
        table = tfOpStatsTable(computeTfOpStats(profile), includeIdle);
    } else {
        table = computeKernelStats(profile).table;
    }
    if (table.rowCount() == 0)
        std::fprintf(stderr,
                     "stepscope-cli export: note: %s has no data for %s; writing the "
                     "header only\n",
                     path.c_str(), tool.c_str());

    if (out == "-") {
        writeCsv(table, std::cout);
        std::cout.flush();
        return std::cout ? 0 : 1;
    }
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    if (!file) {
        std::fprintf(stderr, "stepscope-cli export: cannot write %s\n", out.c_str());
        return 1;
    }
    writeCsv(table, file);
    file.flush();
    if (!file) {
        std::fprintf(stderr, "stepscope-cli export: writing %s failed\n", out.c_str());
        return 1;
    }
    return 0;
}

} // namespace stepscope::cli
