#include "app/cli/CliCache.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace stepscope::cli {

std::string cliCacheFolder() {
    // The GUI's QStandardPaths::CacheLocation is GenericCacheLocation/<organization>/<app>, with
    // organization "Stepscope" and app "stepscope" (app/gui_main.cpp). On Linux Qt's
    // GenericCacheLocation is $XDG_CACHE_HOME when it is an absolute path, else ~/.cache; the
    // CLI, which has no Qt, spells both out.
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::string base =
        xdg && xdg[0] == '/' ? std::string(xdg) : std::string(home ? home : "") + "/.cache";
    return base + "/Stepscope/stepscope/profiles";
}

std::unique_ptr<ProfileCache> openCliCache(const std::string& who) {
    return std::make_unique<ProfileCache>(
        cliCacheFolder(), STEPSCOPE_VERSION, ProfileCache::kDefaultCapBytes,
        [who](bool problem, const std::string& line) {
            if (problem) std::fprintf(stderr, "%s: %s\n", who.c_str(), line.c_str());
        });
}

LoadResult loadPathCached(const std::string& path, const ProfileCache* cache) {
    if (!cache) return loadPath(path);
    const Discovery d = discoverProfiles(path);
    if (!d.ok()) {
        LoadResult result;
        result.error = d.error;
        return result;
    }
    CachedLoad loaded = loadHostsCached(d.runs.front().hosts, cache);
    if (loaded.result.ok() && !loaded.fromCache) cache->store(loaded.key, *loaded.result.profile);
    return std::move(loaded.result);
}

bool takeNoCacheFlag(std::vector<std::string>& args) {
    const auto it = std::remove(args.begin(), args.end(), std::string("--no-cache"));
    const bool found = it != args.end();
    args.erase(it, args.end());
    return found;
}

} // namespace stepscope::cli
