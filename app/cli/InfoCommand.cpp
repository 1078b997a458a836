// `stepscope-cli info PATH [--json]`: what the Profile summary tool shows, as text or JSON.

#include <cstdio>

#include "app/cli/CliCache.h"
#include "app/cli/Commands.h"
#include "model/ProfileLoader.h"
#include "model/analysis/ProfileSummary.h"

namespace stepscope::cli {

int runInfo(const std::vector<std::string>& args) {
    std::string path;
    bool json = false, noCache = false;
    for (const std::string& a : args) {
        if (a == "--no-cache") {
            noCache = true;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--help" || a == "-h") {
            std::puts("usage: stepscope-cli info PATH [--json] [--no-cache]");
            return 0;
        } else if (a.starts_with("-") || !path.empty()) {
            std::fprintf(stderr,
                         "stepscope-cli info: unexpected argument '%s'\n"
                         "usage: stepscope-cli info PATH [--json] [--no-cache]\n",
                         a.c_str());
            return 2;
        } else {
            path = a;
        }
    }
    if (path.empty()) {
        std::fputs("stepscope-cli info: no PATH given\nusage: stepscope-cli info PATH [--json] "
                   "[--no-cache]\n",
                   stderr);
        return 2;
    }
    const auto cache = noCache ? nullptr : openCliCache("stepscope-cli info");
    const LoadResult loaded = loadPathCached(path, cache.get());
    if (!loaded.ok()) {
        std::fprintf(stderr, "stepscope-cli info: %s\n", loaded.error.c_str());
        return 1;
    }
    const ProfileSummary summary = summarizeProfile(*loaded.profile);
    const std::string out = json ? summaryToJson(summary) : summaryToText(summary);
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (!out.empty() && out.back() != '\n') std::fputc('\n', stdout);
    return 0;
}

} // namespace stepscope::cli
