// `stepscope-cli cache (info | clear) [--dir DIR]`: what the profile cache holds, or empty it.

#include <cstdio>

#include "app/cli/CliCache.h"
#include "app/cli/Commands.h"

namespace stepscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: stepscope-cli cache (info | clear) [--dir DIR]\n"
    "  info   the cache folder, its number of entries and their size in bytes\n"
    "  clear  remove every entry\n"
    "  --dir  another cache folder (default: the one the GUI and CLI share)\n";

} // namespace

int runCache(const std::vector<std::string>& args) {
    std::string action, dir = cliCacheFolder();
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--dir" && i + 1 < args.size()) {
            dir = args[++i];
        } else if ((a == "info" || a == "clear") && action.empty()) {
            action = a;
        } else {
            std::fprintf(stderr, "stepscope-cli cache: unexpected argument '%s'\n%s", a.c_str(),
                         kUsage);
            return 2;
        }
    }
    if (action.empty()) {
        std::fprintf(stderr, "stepscope-cli cache: needs info or clear\n%s", kUsage);
        return 2;
    }
    const ProfileCache cache(dir, STEPSCOPE_VERSION);
    if (action == "clear") {
        const ProfileCache::Info before = cache.info();
        const std::string error = cache.clear();
        if (!error.empty()) {
            std::fprintf(stderr, "stepscope-cli cache: %s\n", error.c_str());
            return 1;
        }
        std::printf("removed %zu entries (%llu bytes) from %s\n", before.entries,
                    static_cast<unsigned long long>(before.bytes), dir.c_str());
        return 0;
    }
    const ProfileCache::Info info = cache.info();
    std::printf("folder: %s\nentries: %zu\nbytes: %llu\ncap_bytes: %llu\n", dir.c_str(),
                info.entries, static_cast<unsigned long long>(info.bytes),
                static_cast<unsigned long long>(ProfileCache::kDefaultCapBytes));
    return 0;
}

} // namespace stepscope::cli
